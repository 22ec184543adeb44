// The structure of a configuration file, checked before iniparser reads it:
// iniparser takes the last of duplicate sections and keys, a key before
// any section and an unterminated quote without a word, and a directory
// as an empty file. Each is refused here with the line that is wrong.
#pragma once

#include <string>

namespace mlckpt::core {

// Throws a config Error naming the file, the line and what is allowed.
void check_ini_structure(const std::string& path);

}  // namespace mlckpt::core
