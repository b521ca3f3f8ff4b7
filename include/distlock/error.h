// SPDX-License-Identifier: Apache-2.0
// Exceptions thrown by the distlock runtime. Every message names the lock and the server, in
// one shape: "distlock: lock '<lock>' on <server>: <reason>". A server never shows a password.
#pragma once

#include <stdexcept>
#include <string>

namespace distlock {

// The base of every error the library throws; what() names the lock, the server and the
// reason.
class Error : public std::runtime_error {
 public:
  // `lock` and `server` may be empty where the error concerns no lock (a bad URL, say), or
  // no server (a bad spec); the message then leaves them out.
  Error(std::string lock, std::string server, std::string reason);

  // The lock's name, "<type>:<key>"; empty when the error concerns no lock.
  const std::string& lock() const noexcept { return lock_; }
  // The server as messages name it (no password); empty when the error concerns no server.
  const std::string& server() const noexcept { return server_; }
  // What went wrong, without the lock and the server.
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string lock_;
  std::string server_;
  std::string reason_;
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

// An asynchronous acquisition cancelled (AsyncAcquisition::cancel) before it was granted.
class AcquisitionCancelled : public Error {
  using Error::Error;
};

// A bad URL, option, spec or key.
class ConfigError : public Error {
  using Error::Error;
};

}  // namespace distlock
