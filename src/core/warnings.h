// Warnings the library prints itself, for what it recovers from (a store it cannot write, a
// lookup table or cost model it leaves out).
#pragma once

#include <string>

namespace gemmtune {

// "gemmtune: warning: <message>" on stderr, once per distinct message in this process: a bad
// entry met at every lookup would otherwise flood the log.
void warn_once(const std::string& message);

}  // namespace gemmtune
