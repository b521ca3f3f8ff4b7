// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/channel_credentials.h"

#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_certificate_verifier.h>
#include <grpcpp/security/tls_credentials_options.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <distlock/error.h>

namespace distlock::detail::etcd {
namespace {

constexpr std::string_view kPemCertificate = "-----BEGIN CERTIFICATE-----";

[[noreturn]] void bad_tls_file(const EtcdSettings& settings, const std::string& why) {
  throw ConfigError("", settings.server, "TLS: " + why);
}

std::string lower_first(std::string text) {
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

// The whole file a key names: gRPC takes PEM text, not paths.
std::string pem_file(const EtcdSettings& settings, std::string_view key, const std::string& path) {
  const std::string named = std::string(key) + " '" + path + "'";
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    bad_tls_file(settings, "cannot read " + named + ": it is a directory");
  std::ifstream file(path, std::ios::binary);
  if (!file)
    bad_tls_file(settings, "cannot read " + named + ": " + lower_first(std::strerror(errno)));
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// A file gRPC cannot parse would fail every handshake with a reason that names no file.
std::string certificates_of(const EtcdSettings& settings, std::string_view key,
                            const std::string& path) {
  std::string text = pem_file(settings, key, path);
  if (text.find(kPemCertificate) == std::string::npos)
    bad_tls_file(settings, std::string(key) + " '" + path + "' holds no PEM certificate");
  return text;
}

std::string private_key_of(const EtcdSettings& settings, const std::string& path) {
  std::string text = pem_file(settings, "key", path);
  if (text.find("ENCRYPTED") != std::string::npos)
    bad_tls_file(settings, "key '" + path + "' is encrypted: a key must be PEM, not encrypted");
  if (text.find("-----BEGIN ") == std::string::npos ||
      text.find("PRIVATE KEY-----") == std::string::npos)
    bad_tls_file(settings, "key '" + path + "' holds no PEM private key");
  return text;
}

// Every PEM certificate file of the directory, each once (c_rehash's names are links to them).
std::string certificates_in(const EtcdSettings& settings, const std::string& directory) {
  std::error_code error;
  if (!std::filesystem::is_directory(directory, error))
    bad_tls_file(settings, "cacertdir '" + directory + "' is not a directory");
  std::set<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error))
    if (entry.is_regular_file(error)) files.insert(std::filesystem::canonical(entry.path(), error));
  std::string roots;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (text.str().find(kPemCertificate) != std::string::npos) roots += text.str() + "\n";
  }
  if (roots.empty())
    bad_tls_file(settings, "cacertdir '" + directory + "' holds no PEM certificate");
  return roots;
}

// Without verification gRPC's stable SslCredentials cannot be had: the experimental TLS
// credentials of gRPC 1.51 can, with a verifier that accepts any certificate.
std::shared_ptr<grpc::ChannelCredentials> unverified_credentials(
    const std::string& roots,
    const std::optional<grpc::experimental::IdentityKeyCertPair>& identity) {
  grpc::experimental::TlsChannelCredentialsOptions options;
  options.set_verify_server_certs(false);
  options.set_check_call_host(false);
  options.set_certificate_verifier(std::make_shared<grpc::experimental::NoOpCertificateVerifier>());
  if (identity || !roots.empty()) {
    std::vector<grpc::experimental::IdentityKeyCertPair> pairs;
    if (identity) pairs.push_back(*identity);
    options.set_certificate_provider(
        std::make_shared<grpc::experimental::StaticDataCertificateProvider>(roots, pairs));
    if (!roots.empty()) options.watch_root_certs();
    if (identity) options.watch_identity_key_cert_pairs();
  }
  return grpc::experimental::TlsCredentials(options);
}

}  // namespace

std::shared_ptr<grpc::ChannelCredentials> channel_credentials(const EtcdSettings& settings) {
  if (!settings.tls) return grpc::InsecureChannelCredentials();
  const EtcdTls& tls = *settings.tls;
  std::string roots;
  if (tls.ca_file) roots = certificates_of(settings, "cacert", *tls.ca_file);
  if (tls.ca_directory) roots += certificates_in(settings, *tls.ca_directory);
  std::optional<grpc::experimental::IdentityKeyCertPair> identity;
  if (tls.certificate_file && tls.key_file) {
    std::string chain = certificates_of(settings, "cert", *tls.certificate_file);
    identity = grpc::experimental::IdentityKeyCertPair{private_key_of(settings, *tls.key_file),
                                                       std::move(chain)};
  }
  if (!tls.verifies) return unverified_credentials(roots, identity);
  grpc::SslCredentialsOptions options;
  // Empty: gRPC's default roots, the system's CA store.
  options.pem_root_certs = roots;
  if (identity) {
    options.pem_private_key = identity->private_key;
    options.pem_cert_chain = identity->certificate_chain;
  }
  return grpc::SslCredentials(options);
}

}  // namespace distlock::detail::etcd
