// Exceptions thrown by the distlock runtime. Every message names the lock and the server.
#pragma once

#include <stdexcept>
#include <string>

namespace distlock {

class Error : public std::runtime_error {
 public:
  // `lock` and `server` may be empty where the error concerns no lock (a bad URL, say).
  Error(std::string lock, std::string server, const std::string& what);

  const std::string& lock() const noexcept { return lock_; }
  const std::string& server() const noexcept { return server_; }

 private:
  std::string lock_;
  std::string server_;
};

// The lock was not acquired within the spec's wait (or at once, for try_only).
class LockTimeout : public Error {
  using Error::Error;
};

// The lease ran out, was taken over, or was deleted behind the holder's back.
class LockLost : public Error {
  using Error::Error;
};

// The server could not be reached or did not answer within the configured timeouts.
class BackendUnavailable : public Error {
  using Error::Error;
};

// A bad URL, option, spec or key.
class ConfigError : public Error {
  using Error::Error;
};

}  // namespace distlock
