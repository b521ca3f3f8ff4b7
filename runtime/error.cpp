#include <distlock/error.h>

namespace distlock {

Error::Error(std::string lock, std::string server, const std::string& what)
    : std::runtime_error(what), lock_(std::move(lock)), server_(std::move(server)) {}

}  // namespace distlock
