// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/connection_failure.h"

#include <string_view>

namespace distlock::detail::etcd {
namespace {

// gRPC 1.51's words (its status message when no address of a channel could be connected).
constexpr std::string_view kNoConnection = "failed to connect to all addresses";
constexpr std::string_view kLastError = "last error: ";
constexpr std::string_view kHandshakeFailed = "Ssl handshake failed";
constexpr std::string_view kVerifyFailed = "certificate verify failed";
constexpr std::string_view kPeerName = "Peer name ";
constexpr std::string_view kNotInCertificate = " is not in peer certificate";
// The server closed the connection during the TLS handshake, or while the client waited for
// its HTTP/2 settings (a plain client to a TLS server).
constexpr std::string_view kSocketClosed = "Socket closed";
// The same, when the server reset the connection with the client's hello unread.
constexpr std::string_view kResetInHandshake = "recvmsg:Connection reset by peer";
// No connection to try: gRPC could not make the channel's TLS from the PEM it was given (a key
// that is not the certificate's; the files' text was checked before, not their contents).
constexpr std::string_view kNoAddress = "empty address list";
// The first read after the handshake failed: with TLS 1.3 a server that refuses the client's
// certificate (or its absence) says so only then, in an alert gRPC does not pass on.
constexpr std::string_view kReadFailed = "Endpoint read failed";
// The same alert met by the first write instead, when the client wrote before it read (seen
// under AddressSanitizer's timing): the secure endpoint could not wrap the write.
constexpr std::string_view kWrapFailed = "Wrap failed";

bool mentions(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// gRPC's own words, without its preamble: "(gRPC: Ssl handshake failed: ...)".
std::string grpc_words(const std::string& reason) {
  const auto last = reason.find(kLastError);
  return " (gRPC: " +
         (last == std::string::npos ? reason : reason.substr(last + kLastError.size())) + ")";
}

std::string tls_connection_failure(const EtcdSettings& settings, const std::string& reason) {
  const EtcdTls& tls = *settings.tls;
  const std::string words = grpc_words(reason);
  if (mentions(reason, kVerifyFailed))
    return "TLS: certificate verify failed: no CA of " +
           std::string(tls.ca_file || tls.ca_directory ? "cacert/cacertdir"
                                                       : "the system's store (no cacert given)") +
           " signed the server's certificate, or it has expired" + words;
  if (const auto at = reason.find(kPeerName);
      at != std::string::npos && mentions(reason, kNotInCertificate)) {
    const auto begin = at + kPeerName.size();
    const std::string name = reason.substr(begin, reason.find(kNotInCertificate) - begin);
    return "TLS: host name mismatch: the server's certificate is not for " + name +
           "; connect by a name it has, or name it with sni=" + words;
  }
  if (mentions(reason, kHandshakeFailed)) return "TLS: the handshake failed" + words;
  if (mentions(reason, kSocketClosed) || mentions(reason, kResetInHandshake))
    return "TLS: the server closed the connection during the handshake: it does not speak TLS on "
           "this port? (use etcd:// for a plain one)" +
           words;
  if (mentions(reason, kReadFailed) || mentions(reason, kWrapFailed))
    return tls.certificate_file
               ? "TLS: the server closed the connection after the handshake: it may have refused "
                 "the client certificate (it takes those its --trusted-ca-file signed)" +
                     words
               : "TLS: the server closed the connection after the handshake: it may require a "
                 "client certificate, and the URL gives none (cert= and key=)" +
                     words;
  return reason;
}

// With TLS, the only way an address literal gives gRPC no address to connect to.
std::string unusable_files(const EtcdTls& tls, const std::string& reason) {
  const std::string which =
      tls.certificate_file
          ? "is key '" + *tls.key_file + "' the key of cert '" + *tls.certificate_file + "'?"
          : "are the certificates of cacert/cacertdir valid?";
  return "TLS: gRPC could not set up TLS from the URL's files: " + which + grpc_words(reason);
}

}  // namespace

std::string connection_failure(const EtcdSettings& settings, const std::string& reason) {
  if (settings.tls && mentions(reason, kNoAddress)) return unusable_files(*settings.tls, reason);
  if (!mentions(reason, kNoConnection)) return reason;
  if (settings.tls) return tls_connection_failure(settings, reason);
  if (mentions(reason, kSocketClosed))
    return "the server closed the connection: if it speaks TLS only, use etcds://" +
           grpc_words(reason);
  return reason;
}

}  // namespace distlock::detail::etcd
