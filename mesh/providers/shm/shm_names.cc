#include "mesh/providers/shm/shm_names.h"

#include <sodium.h>

#include <cstdio>

namespace meshmp::mesh {

std::string shm_name_tag(const std::string& secret, const std::string& token, const std::string& what) {
  if (secret.empty()) return token;
  unsigned char mac[crypto_auth_hmacsha512256_BYTES];
  crypto_auth_hmacsha512256_state st;
  crypto_auth_hmacsha512256_init(&st, reinterpret_cast<const unsigned char*>(secret.data()), secret.size());
  const std::string msg = token + "/" + what;
  crypto_auth_hmacsha512256_update(&st, reinterpret_cast<const unsigned char*>(msg.data()), msg.size());
  crypto_auth_hmacsha512256_final(&st, mac);
  char hex[2 * 16 + 1];
  for (int i = 0; i < 16; ++i) std::snprintf(hex + 2 * i, 3, "%02x", mac[i]);
  return hex;
}

}  // namespace meshmp::mesh
