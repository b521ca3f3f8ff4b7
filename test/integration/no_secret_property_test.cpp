// SPDX-License-Identifier: Apache-2.0
// No password in any message, as a property. Random URLs of every scheme carry a marker
// password (random characters, '?', '#', '/', '@', ':', '%', '&' and '=' among them) in the
// user information, in ?password=, or after a ':' where the '@' and the hosts were forgotten
// ("locker:<password>"), most of them malformed in a random way (a bad port, an
// unknown key, a bad value, no host, a stray character...). Each goes to Client::connect and
// admin::LockAdmin::connect (against a loopback port nobody listens on, with a short
// connect_timeout), and some to the distlock command. No exception's text, log line or output
// of the command may show the marker. DISTLOCK_PROPERTY_SEED=<n> replays a run; a failure
// prints the seed and the URL.
#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <distlock/admin.h>
#include <distlock/distlock.h>

#include "captured_log.h"
#include "distlock_command.h"
#include "redis_server.h"
#include "util/sanitizer.h"

namespace distlock::testing {
namespace {

using namespace std::chrono_literals;

// A sanitizer's build runs a quarter of the URLs: it looks for memory and threading faults in
// the same parsing and connecting code, at several times the cost of each.
#if defined(DISTLOCK_THREAD_SANITIZER) || defined(DISTLOCK_ADDRESS_SANITIZER)
constexpr int kUrlsPerScheme = 10;
#else
constexpr int kUrlsPerScheme = 40;
#endif
constexpr int kCommandRunsPerScheme = 5;
constexpr std::string_view kMarkerAlphabet =
    "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789?#/@:%&=";
constexpr std::string_view kWordAlphabet =
    "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
constexpr std::string_view kStrayCharacters = " []{}<>|^`\\\",;@?#%";

// A URL in pieces, so that a malformation can pick one.
struct UrlParts {
  std::string scheme;
  std::string separator = "://";
  std::string userinfo;  // with its '@'
  std::vector<std::string> hosts;
  std::string path;
  std::vector<std::string> query;  // key=value items
  // The password stands in the hosts, after a ':' ("locker:<password>", its '@' forgotten).
  bool password_in_hosts = false;

  std::string text() const {
    std::string url = scheme + separator + userinfo;
    for (std::size_t i = 0; i < hosts.size(); ++i) url += (i == 0 ? "" : ",") + hosts[i];
    url += path;
    for (std::size_t i = 0; i < query.size(); ++i) url += (i == 0 ? "?" : "&") + query[i];
    return url;
  }
};

// A URL, and the forms of its password that must not show.
struct SecretUrl {
  std::string url;
  std::vector<std::string> secrets;
};

std::string percent_encoded(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) != 0) {
      encoded += c;
    } else {
      encoded += '%';
      encoded += kHex[byte >> 4];
      encoded += kHex[byte & 0xf];
    }
  }
  return encoded;
}

// What the runtime would take the password to be once decoded: its %XX escapes replaced
// (the escapes that are not ones stay as written).
std::string percent_decoded(std::string_view text) {
  std::string decoded;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() &&
        std::isxdigit(static_cast<unsigned char>(text[i + 1])) != 0 &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2])) != 0) {
      decoded += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      decoded += text[i];
    }
  }
  return decoded;
}

class UrlGenerator {
 public:
  UrlGenerator(std::uint64_t seed, std::uint16_t refused_port)
      : random_(seed), host_("127.0.0.1:" + std::to_string(refused_port)) {}

  SecretUrl next(const std::string& scheme) {
    const std::string marker = random_marker();
    SecretUrl result;
    result.secrets = {marker};
    if (const auto decoded = percent_decoded(marker); decoded != marker)
      result.secrets.push_back(decoded);

    UrlParts parts = well_formed(scheme);
    switch (pick(7)) {
      case 0:
        parts.userinfo = "locker:" + marker + "@";
        break;
      case 1:
        parts.userinfo = ":" + marker + "@";
        break;
      case 2:  // a password written without its ':'
        parts.userinfo = marker + "@";
        break;
      case 3: {
        const std::string encoded = percent_encoded(marker);
        parts.userinfo = "locker:" + encoded + "@";
        result.secrets.push_back(encoded);
        break;
      }
      case 4:  // the '@' and the hosts forgotten: "locker:<password>" reads as a host and port
      case 5: {
        const std::string password = random_word();
        result.secrets = {password};
        parts.hosts = {(pick(2) == 0 ? "locker:" : ":") + password};
        parts.password_in_hosts = true;
        break;
      }
      default: {
        const auto at =
            parts.query.begin() + static_cast<std::ptrdiff_t>(pick(parts.query.size() + 1));
        parts.query.insert(at, "password=" + marker);
        break;
      }
    }
    for (std::size_t n = pick(3); n > 0; --n) malform(parts);
    result.url = parts.text();
    return result;
  }

  std::size_t pick(std::size_t choices) {
    return std::uniform_int_distribution<std::size_t>(0, choices - 1)(random_);
  }

  template <class T>
  T pick_of(const std::vector<T>& choices) {
    return choices[pick(choices.size())];
  }

 private:
  std::string random_marker() {
    std::string marker = "pw";
    for (int i = 0; i < 12; ++i) marker += kMarkerAlphabet[pick(kMarkerAlphabet.size())];
    return marker;
  }

  // A password of letters and digits only, none of which ends a URL's authority.
  std::string random_word() {
    std::string word = "pw";
    for (int i = 0; i < 12; ++i) word += kWordAlphabet[pick(kWordAlphabet.size())];
    return word;
  }

  UrlParts well_formed(const std::string& scheme) const {
    UrlParts parts;
    parts.scheme = scheme;
    if (scheme == "memory") {
      parts.hosts = {"shared"};
      return parts;
    }
    parts.query = {"connect_timeout=150ms"};
    // The TLS schemes take the plain ones' hosts and path; insecure=true logs a warning
    // naming the URL, and needs no file.
    std::string topology = scheme;
    if (scheme.starts_with("rediss")) {
      topology.erase(5, 1);
      parts.query.emplace_back("insecure=true");
    }
    if (topology == "redis+unix") {
      parts.path = "/nonexistent/redis.sock";
    } else if (topology == "redis+sentinel") {
      parts.hosts = {host_, host_};
      parts.path = "/master";
    } else if (topology == "redis+cluster") {
      parts.hosts = {host_, host_};
    } else if (topology == "redis+redlock") {
      parts.hosts = {host_, host_, host_};
    } else if (scheme == "zookeeper") {
      parts.hosts = {host_};
      parts.path = "/chroot";
    } else if (scheme.starts_with("etcd")) {
      parts.hosts = {host_, host_};
      if (scheme == "etcds") parts.query.emplace_back("insecure=true");
    } else if (scheme.starts_with("postgres")) {
      // libpq's connect_timeout, in whole seconds.
      parts.query = {"connect_timeout=1"};
      parts.hosts = {host_};
      parts.path = "/postgres";
    } else {
      parts.hosts = {host_};
      parts.path = "/0";
    }
    return parts;
  }

  void malform(UrlParts& parts) {
    switch (pick(10)) {
      case 0:
        if (parts.hosts.empty()) parts.hosts.emplace_back("h");
        parts.hosts[0] = "127.0.0.1:" +
                         pick_of<std::string>({"notaport", "70000", "", "0", "-1", "1:2", "65536"});
        break;
      case 1:
        insert_somewhere(parts.query, "colour=blue");
        break;
      case 2:
        insert_somewhere(
            parts.query,
            pick_of<std::string>(
                {"connect_timeout=soon", "connect_timeout=", "command_timeout=-1s",
                 "max_connections=0", "session_timeout=long", "db=x", "min_replicas=many",
                 "max_connections=99999999999", "cacert=/nonexistent/ca.pem", "insecure=maybe",
                 "sni=", "cert=/nonexistent/client.pem", "cacertdir=/nonexistent"}));
        break;
      case 3:
        // Where the password stands in the hosts, taking them away takes it with them.
        if (!parts.password_in_hosts) parts.hosts.clear();
        break;
      case 4:
        insert_stray_character(parts);
        break;
      case 5:
        // Where the password stands in the hosts, with no '@' after it, the "://" before it is
        // all that says it is in a URL: ":///" would make it a path, which messages show, and
        // without "://" nothing tells it from a lock name ("order:1").
        if (!parts.password_in_hosts)
          parts.separator = pick_of<std::string>({":", ":/", ":///", "//", ""});
        break;
      case 6:
        parts.path += pick_of<std::string>({"%zz", "%4", "/a/../b", "/x", "//"});
        break;
      case 7:
        insert_somewhere(parts.query, pick_of<std::string>({"flag", "=v", "", "a=%4"}));
        break;
      case 8:
        parts.scheme = pick_of<std::string>({"REDIS", "mongo", "redis+", "re dis", ""});
        break;
      default:
        parts.userinfo += pick_of<std::string>({"@", "x@", ":@", "%@"});
        break;
    }
  }

  void insert_somewhere(std::vector<std::string>& items, std::string item) {
    items.insert(items.begin() + static_cast<std::ptrdiff_t>(pick(items.size() + 1)),
                 std::move(item));
  }

  void insert_stray_character(UrlParts& parts) {
    const char stray = kStrayCharacters[pick(kStrayCharacters.size())];
    std::string* target = &parts.scheme;
    switch (pick(3)) {
      case 0:
        if (!parts.hosts.empty()) target = &parts.hosts[pick(parts.hosts.size())];
        break;
      case 1:
        target = &parts.path;
        break;
      default:
        break;
    }
    target->insert(pick(target->size() + 1), 1, stray);
  }

  std::mt19937_64 random_;
  std::string host_;
};

std::uint64_t property_seed() {
  if (const char* given = std::getenv("DISTLOCK_PROPERTY_SEED"); given != nullptr && *given != 0)
    return std::stoull(given);
  return std::random_device{}();
}

const std::vector<std::string> kSchemes = {
    "memory",         "redis",     "redis+unix",  "redis+sentinel",  "redis+cluster",
    "redis+redlock",  "rediss",    "rediss+unix", "rediss+sentinel", "rediss+cluster",
    "rediss+redlock", "zookeeper",
#if DISTLOCK_TEST_ETCD
    "etcd",
// Under TSan, etcds:// is left out as the EtcdTls suite is (test/sanitizers/tsan.supp): gRPC's
// threads hand OpenSSL's objects to each other unseen.
#if !defined(DISTLOCK_THREAD_SANITIZER)
    "etcds",
#endif
#endif
#if DISTLOCK_TEST_POSTGRESQL
    "postgresql",     "postgres",
#endif
};

class NoSecretInAnyMessage : public ::testing::Test {
 protected:
  NoSecretInAnyMessage()
      : seed_(property_seed()),
        trace_(__FILE__, __LINE__, "DISTLOCK_PROPERTY_SEED=" + std::to_string(seed_)),
        urls_(seed_, free_loopback_port()) {
    options_.connect_timeout = 150ms;
    options_.command_timeout = 150ms;
  }

  void TearDown() override {
    for (const auto& line : log_.lines())
      for (const auto& secret : secrets_)
        EXPECT_EQ(line.find(secret), std::string::npos) << "logged '" << secret << "': " << line;
  }

  SecretUrl next(const std::string& scheme) {
    SecretUrl url = urls_.next(scheme);
    secrets_.insert(secrets_.end(), url.secrets.begin(), url.secrets.end());
    return url;
  }

  static void expect_hidden(const SecretUrl& url, std::string_view where, std::string_view text) {
    for (const auto& secret : url.secrets)
      EXPECT_EQ(text.find(secret), std::string::npos)
          << where << " shows '" << secret << "' of " << url.url << ":\n"
          << text;
  }

  static void expect_hidden(const SecretUrl& url, const Error& error) {
    expect_hidden(url, "what()", error.what());
    expect_hidden(url, "server()", error.server());
    expect_hidden(url, "reason()", error.reason());
  }

  // Runs `connect`, which must throw a distlock::Error, and checks what it says.
  template <class Connect>
  void expect_error_without_secret(const SecretUrl& url, const Connect& connect) {
    try {
      connect();
      ADD_FAILURE() << "no error for " << url.url;
    } catch (const Error& error) {
      expect_hidden(url, error);
    } catch (const std::exception& error) {
      ADD_FAILURE() << "not a distlock::Error for " << url.url << ": " << error.what();
      expect_hidden(url, "what()", error.what());
    }
  }

  std::vector<std::string> command_line(const std::string& url) {
    const std::vector<std::vector<std::string>> subcommands = {{"list"},
                                                               {"list", "order:*"},
                                                               {"show", "order:1"},
                                                               {"release", "order:1", "--force"},
                                                               {"watch", "--count", "1"}};
    std::vector<std::string> args = urls_.pick_of(subcommands);
    switch (urls_.pick(4)) {
      case 0:
        args.insert(args.begin(), {"--url", url});
        break;
      case 1:
        args.push_back("--url=" + url);
        break;
      case 2:  // the URL where a subcommand belongs
        args.insert(args.begin(), url);
        break;
      default:  // an operator who forgot --url
        args = {"list", "order:*", url};
        break;
    }
    return args;
  }

  const std::uint64_t seed_;
  const ::testing::ScopedTrace trace_;
  UrlGenerator urls_;
  Options options_;
  CapturedLog log_;
  std::vector<std::string> secrets_;
};

TEST_F(NoSecretInAnyMessage, ClientAndAdminConnect) {
  for (const auto& scheme : kSchemes) {
    for (int i = 0; i < kUrlsPerScheme; ++i) {
      const SecretUrl url = next(scheme);
      expect_error_without_secret(url, [&] { Client::connect(url.url, options_); });
      expect_error_without_secret(url, [&] {
        const auto admin = admin::LockAdmin::connect(url.url, options_);
        (void)admin->list("");
      });
    }
  }
}

TEST_F(NoSecretInAnyMessage, DistlockCommand) {
  for (const auto& scheme : kSchemes) {
    for (int i = 0; i < kCommandRunsPerScheme; ++i) {
      const SecretUrl url = next(scheme);
      const bool from_environment = urls_.pick(3) == 0;
      const auto result = from_environment ? run_distlock(urls_.pick_of<std::vector<std::string>>(
                                                              {{"list"}, {"show", "order:1"}}),
                                                          url.url)
                                           : run_distlock(command_line(url.url));
      EXPECT_TRUE(result.code() == 2 || result.code() == 3) << url.url << ": " << result.describe();
      expect_hidden(url, "stdout", result.out);
      expect_hidden(url, "stderr", result.err);
    }
  }
}

}  // namespace
}  // namespace distlock::testing
