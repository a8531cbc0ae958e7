// qmp-mesh check and show: a mesh config file validated and its torus
// listed (mesh/config/config.h), without building anything.
#pragma once

#include <string>

namespace meshmp::tools {

/// `qmp-mesh check FILE` (and the first line of `show`): exit status 0 and
/// one summary line, or 1 and the config error (file:line: key: ...).
int check_config(const std::string& file, bool show_nodes);

}  // namespace meshmp::tools
