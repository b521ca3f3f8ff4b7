// SPDX-License-Identifier: Apache-2.0
// The gRPC credentials of the etcd backend's channels: none for etcd://, TLS for etcds:// from
// the files its URL names (settings.h), read when the client connects.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>

#include "backends/etcd/settings.h"

namespace distlock::detail::etcd {

// Insecure channel credentials without settings.tls. With it: the CA certificates of cacert
// and cacertdir (the system's without either), the client certificate and key, and with
// insecure=true no check of the server's certificate. Throws ConfigError naming the file and
// the server for a file that cannot be read or holds no PEM of its kind.
std::shared_ptr<grpc::ChannelCredentials> channel_credentials(const EtcdSettings& settings);

}  // namespace distlock::detail::etcd
