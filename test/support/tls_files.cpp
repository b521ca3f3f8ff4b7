// SPDX-License-Identifier: Apache-2.0
#include "tls_files.h"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "subprocess.h"

namespace distlock::testing {
namespace {

constexpr auto kOpensslDeadline = std::chrono::seconds(60);

void openssl(const std::filesystem::path& program, const std::vector<std::string>& args) {
  Subprocess::Options options;
  options.merge_stderr = true;
  Subprocess process(program, args, options);
  const std::string output = process.read_all(kOpensslDeadline);
  const ExitStatus status = process.wait(kOpensslDeadline);
  if (!status.success()) {
    std::string command = "openssl";
    for (const auto& arg : args) command += " " + arg;
    throw std::runtime_error(command + " failed (" + status.describe() + "):\n" + output);
  }
}

// The directory and what is in it, removed when the process exits.
struct Made {
  TlsFiles files;
  ~Made() {
    std::error_code ignored;
    std::filesystem::remove_all(files.directory, ignored);
  }
};

std::unique_ptr<Made> make_files() {
  const std::filesystem::path program = find_program("openssl");
  if (program.empty())
    throw std::runtime_error(
        "openssl not found: the TLS tests make their certificates with it (Debian: apt-get "
        "install openssl)");
  auto made = std::make_unique<Made>();
  std::string pattern = (std::filesystem::temp_directory_path() / "distlock-tls-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
  TlsFiles& files = made->files;
  files.directory = pattern;
  const auto in = [&](const std::string& name) { return (files.directory / name).string(); };
  const std::vector<std::string> new_key = {"-newkey", "ec", "-pkeyopt",
                                            "ec_paramgen_curve:prime256v1", "-nodes"};

  const auto make_ca = [&](const std::string& name) {
    std::vector<std::string> args = {"req", "-x509"};
    args.insert(args.end(), new_key.begin(), new_key.end());
    args.insert(args.end(), {"-keyout", in(name + ".key"), "-out", in(name + ".crt"), "-subj",
                             "/CN=distlock test " + name, "-days", "3650"});
    openssl(program, args);
    return files.directory / (name + ".crt");
  };
  files.ca = make_ca("ca");
  files.other_ca = make_ca("other-ca");

  // A pair signed by the first CA, valid for `days` (negative: already expired).
  const auto make_pair = [&](const std::string& name, const std::string& extension, int days) {
    std::vector<std::string> request = {"req"};
    request.insert(request.end(), new_key.begin(), new_key.end());
    request.insert(request.end(), {"-keyout", in(name + ".key"), "-out", in(name + ".csr"), "-subj",
                                   "/CN=distlock test " + name});
    openssl(program, request);
    std::ofstream(in(name + ".ext")) << extension << "\n";
    openssl(program, {"x509", "-req", "-in", in(name + ".csr"), "-CA", in("ca.crt"), "-CAkey",
                      in("ca.key"), "-CAcreateserial", "-days", std::to_string(days), "-extfile",
                      in(name + ".ext"), "-out", in(name + ".crt")});
    return TlsFiles::Pair{files.directory / (name + ".crt"), files.directory / (name + ".key")};
  };
  const std::string local_names = "subjectAltName=IP:127.0.0.1,DNS:localhost";
  files.server = make_pair("server", local_names, 3650);
  files.client = make_pair("client", "extendedKeyUsage=clientAuth", 3650);
  files.expired_server = make_pair("expired-server", local_names, -1);
  files.wrong_host_server =
      make_pair("wrong-host-server", "subjectAltName=DNS:elsewhere.example", 3650);
  return made;
}

}  // namespace

const TlsFiles& tls_files() {
  static const std::unique_ptr<Made> made = make_files();
  return made->files;
}

ServerTls ServerTls::of_test_ca(bool client_certificates_required) {
  const TlsFiles& files = tls_files();
  return {files.server, files.ca, client_certificates_required};
}

}  // namespace distlock::testing
