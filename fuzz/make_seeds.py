#!/usr/bin/env python3
"""Writes the hand-made seed inputs of fuzz/corpus/ (run once; the files are
kept in the repo). Layouts: mesh/wire.h FrameHeader, mesh/bootstrap/protocol.h
frames, fuzz/frame_header_fuzzer.cc's LinkView prefix."""
import os
import struct

here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(target, name, data):
    os.makedirs(os.path.join(here, target), exist_ok=True)
    with open(os.path.join(here, target, name), "wb") as f:
        f.write(data)


# frame_header: view (my, peer, expected_seq, max_payload, max_credits) + header
def view(my=1, peer=0, seq=5, payload=16384, credits=32):
    return struct.pack("<iiQII", my, peer, seq, payload, credits)


def header(ftype, length=0, tag=0, flags=0, credits=0, src=0, dst=1, ctx=0, seq=5, version=3, hops=0, e2e=0):
    # link part: version, type, flags, credits, seq; end-to-end part: src,
    # dst, tag, context (u16), hops, e2e_credits, length, send_id, recv_id,
    # addr, key (mesh/wire.h, 72 bytes)
    return struct.pack("<BBHIQiiiHBBQQQQQ", version, ftype, flags, credits, seq, src, dst, tag, ctx, hops, e2e,
                       length, 1, 2, 0x1000, 7)


# The view's routing (nranks, max_hops): the forwarding agent (issue 31).
def routing(nranks=64, max_hops=6):
    return struct.pack("<ii", nranks, max_hops)


put("frame_header", "eager_ok", view() + header(1, length=100, tag=3))
put("frame_header", "rts_2e62", view() + header(2, length=1 << 62, tag=3))
put("frame_header", "eager_negative_tag", view() + header(1, length=8, tag=-5))
put("frame_header", "bad_type", view() + header(14))
put("frame_header", "no_route", view() + header(13, src=40, hops=1, credits=1) + routing())
put("frame_header", "cts_ok", view() + header(3, length=1 << 20))
put("frame_header", "credit_with_payload", view() + header(5, length=4))
put("frame_header", "cancel_ack", view() + header(10, length=1))
put("frame_header", "old_seq", view() + header(4, seq=4))
put("frame_header", "version_1", view() + header(1, length=100, tag=3, version=1))
put("frame_header", "version_2", view() + header(1, length=100, tag=3, version=2))
put("frame_header", "forwarded", view() + header(1, length=100, tag=3, hops=2))
put("frame_header", "routed_for_me", view() + header(1, length=100, tag=3, src=40, hops=2, e2e=3) + routing())
put("frame_header", "routed_to_forward", view() + header(6, length=100, src=0, dst=9, e2e=16) + routing())
put("frame_header", "routed_too_far", view() + header(2, length=1 << 20, src=40, dst=9, hops=5) + routing())
put("frame_header", "routed_credit", view() + header(5, src=40, hops=1, e2e=32) + routing())
put("frame_header", "flag", view() + header(12) + routing())
put("frame_header", "bye_forwarded", view() + header(11, dst=9) + routing())
# Found by the fuzzer (as a one-part header of wire version 1): a SYNC_ACK
# carrying a length was accepted.
put("frame_header", "sync_ack-with-length", view() + header(7, length=1 << 57))

# config: the shipped configs are copied by hand; a few malformed ones here.
put("config", "deep_arrays", b"[mesh]\ndims = " + b"[" * 40 + b"1" + b"]" * 40 + b"\n")
put("config", "unclosed", b"[mesh]\ndims = [2, 2\n")
put("config", "big_first", b"[mesh]\ndims = [2]\n[nodes]\nfirst = 2147483647\n")
put("config", "dotted", b"[mesh]\n" + b"a." * 50 + b"b = 1\n")


# bootstrap: u32 type, u32 length, body
def frame(ftype, body):
    return struct.pack("<II", ftype, len(body)) + body


secret = b"0123456789abcdef0123456789abcdef"
put("bootstrap", "hello", frame(1, struct.pack("<II", 3, 4242) + secret))
put("bootstrap", "hello_wrong_secret", frame(1, struct.pack("<II", 3, 4242) + b"x" * 32))
put("bootstrap", "fence_result", frame(3, b"".join(struct.pack("<I", len(b)) + b for b in
                                                   [b"\x03", b"seg-a", b"", b"seg-b"])))
put("bootstrap", "abort", frame(4, struct.pack("<i", 7) + b"rank 3 gave up"))
put("bootstrap", "oversized", struct.pack("<II", 2, (64 << 20) + 1))
put("bootstrap", "partial", frame(2, b"abcdef")[:10])
put("bootstrap", "two_frames", frame(2, b"blob") + frame(4, struct.pack("<i", 0)))
