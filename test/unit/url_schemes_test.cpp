// SPDX-License-Identifier: Apache-2.0
// Which query parameters each URL scheme takes: the table of docs/guide.md ("URLs"), checked
// cell by cell. A parameter a scheme does not take is a ConfigError naming the ones it does.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include <distlock/admin.h>
#include <distlock/client.h>
#include <distlock/error.h>
#include <distlock/log.h>

#include "backends/url_schemes.h"
#include "util/url.h"

namespace {

using distlock::detail::options_for_scheme;
using distlock::detail::parse_url;

struct Parameter {
  std::string assignment;
  std::vector<std::string> taken_by;
};

const std::vector<std::string> kUrls = {
    "memory://",
    "redis://host",
    "redis+unix:///run/redis.sock",
    "redis+sentinel://host/master",
    "redis+cluster://host",
    "redis+redlock://a,b,c",
#if DISTLOCK_WITH_TLS
    "rediss://host",
    "rediss+sentinel://host/master",
    "rediss+cluster://host",
    "rediss+redlock://a,b,c",
#endif
#if DISTLOCK_WITH_ZOOKEEPER
    "zookeeper://host",
#endif
#if DISTLOCK_WITH_ETCD
    "etcd://a,b,c",
    "etcds://a,b,c",
#endif
};

const std::vector<std::string> kTlsSchemes = {"rediss", "rediss+sentinel", "rediss+cluster",
                                              "rediss+redlock", "etcds"};

const std::vector<Parameter> kParameters = {
    {"connect_timeout=1s",
     {"redis", "redis+unix", "redis+sentinel", "redis+cluster", "redis+redlock", "rediss",
      "rediss+sentinel", "rediss+cluster", "rediss+redlock", "zookeeper", "etcd", "etcds"}},
    {"command_timeout=1s",
     {"redis", "redis+unix", "redis+sentinel", "redis+cluster", "redis+redlock", "rediss",
      "rediss+sentinel", "rediss+cluster", "rediss+redlock", "zookeeper", "etcd", "etcds"}},
    {"max_connections=4",
     {"redis", "redis+unix", "redis+sentinel", "redis+cluster", "redis+redlock", "rediss",
      "rediss+sentinel", "rediss+cluster", "rediss+redlock"}},
    {"db=2", {"redis+unix", "redis+sentinel", "rediss+sentinel"}},
    {"min_replicas=1",
     {"redis", "redis+unix", "redis+sentinel", "redis+cluster", "rediss", "rediss+sentinel",
      "rediss+cluster"}},
    {"reply_spin_us=50",
     {"redis", "redis+unix", "redis+sentinel", "redis+cluster", "redis+redlock", "rediss",
      "rediss+sentinel", "rediss+cluster", "rediss+redlock"}},
    {"session_timeout=5s", {"zookeeper"}},
    {"cacert=/etc/ssl/redis-ca.pem", kTlsSchemes},
    {"cacertdir=/etc/ssl/certs", kTlsSchemes},
    {"cert=/etc/ssl/client.pem", kTlsSchemes},
    {"key=/etc/ssl/client.key", kTlsSchemes},
    {"sni=cache.example.internal", kTlsSchemes},
    {"insecure=false", kTlsSchemes},
};

bool takes(const Parameter& parameter, const std::string& scheme) {
  for (const auto& taker : parameter.taken_by)
    if (taker == scheme) return true;
  return false;
}

TEST(UrlSchemes, EachSchemeTakesTheParametersOfTheGuidesTable) {
  for (const auto& base : kUrls) {
    const std::string scheme = parse_url(base).scheme;
    for (const auto& parameter : kParameters) {
      const std::string text = base + "?" + parameter.assignment;
      if (takes(parameter, scheme)) {
        EXPECT_NO_THROW((void)options_for_scheme(parse_url(text), distlock::Options{})) << text;
        continue;
      }
      try {
        (void)options_for_scheme(parse_url(text), distlock::Options{});
        ADD_FAILURE() << text << ": taken, but the guide says " << scheme << " does not take it";
      } catch (const distlock::ConfigError& error) {
        const std::string what = error.what();
        const std::string name = parameter.assignment.substr(0, parameter.assignment.find('='));
        EXPECT_NE(what.find("'" + name + "' is unknown here"), std::string::npos) << what;
      }
    }
  }
}

#if DISTLOCK_WITH_ETCD
// insecure=true is said at connect for etcds:// as for rediss://: nobody turns verification off
// unawares.
TEST(UrlSchemes, EtcdsWithoutVerificationWarnsOnce) {
  std::vector<std::string> warnings;
  distlock::set_logger([&](distlock::LogLevel level, std::string_view message) {
    if (level == distlock::LogLevel::warning) warnings.emplace_back(message);
  });
  (void)options_for_scheme(parse_url("etcds://host?insecure=false"), distlock::Options{});
  EXPECT_TRUE(warnings.empty());
  (void)options_for_scheme(parse_url("etcds://user:secret@host?insecure=true"),
                           distlock::Options{});
  distlock::set_logger({});
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings.front().find("insecure=true"), std::string::npos) << warnings.front();
  EXPECT_EQ(warnings.front().find("secret"), std::string::npos) << warnings.front();
}
#endif

// insecure= reads the same for rediss:// and etcds://; any other word is a ConfigError saying
// what it takes, naming the URL without its password.
TEST(UrlSchemes, InsecureTakesTrueOrFalseAndNothingElse) {
  for (const char* on : {"true", "yes", "1"})
    EXPECT_TRUE(tls_insecure(parse_url(std::string("rediss://host?insecure=") + on))) << on;
  for (const char* off : {"false", "no", "0"})
    EXPECT_FALSE(tls_insecure(parse_url(std::string("etcds://host?insecure=") + off))) << off;
  EXPECT_FALSE(tls_insecure(parse_url("rediss://host")));
  try {
    (void)tls_insecure(parse_url("etcds://user:secret@host?insecure=maybe"));
    ADD_FAILURE() << "insecure=maybe was taken";
  } catch (const distlock::ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("'insecure' must be true or false"), std::string::npos)
        << error.what();
    EXPECT_EQ(std::string(error.what()).find("secret"), std::string::npos) << error.what();
  }
}

// A unix socket does not leave its host: there is no TLS form of redis+unix://.
TEST(UrlSchemes, RedissUnixIsRefusedSayingWhy) {
  try {
    (void)options_for_scheme(parse_url("rediss+unix://:secret@/run/redis.sock"),
                             distlock::Options{});
    ADD_FAILURE() << "rediss+unix:// was taken";
  } catch (const distlock::ConfigError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("rediss+unix:// does not exist"), std::string::npos) << what;
    EXPECT_NE(what.find("redis+unix:///path/to/redis.sock"), std::string::npos) << what;
    EXPECT_EQ(what.find("secret"), std::string::npos) << what;
  }
}

#if !DISTLOCK_WITH_TLS
TEST(UrlSchemes, ABuildWithoutTlsRefusesRedissSayingSo) {
  try {
    (void)options_for_scheme(parse_url("rediss://user:secret@host:6380"), distlock::Options{});
    ADD_FAILURE() << "rediss:// was taken";
  } catch (const distlock::ConfigError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("built without TLS (DISTLOCK_WITH_TLS=OFF)"), std::string::npos) << what;
    EXPECT_EQ(what.find("secret"), std::string::npos) << what;
  }
}
#endif

// The backends and the distlock command's inspectors take the same URLs: a Redis Cluster
// without a seed crashed the inspector, and a Redlock without masters listed nothing.
TEST(UrlSchemes, HostsTheSchemeCannotUseAreAConfigErrorForClientAndAdminAlike) {
  for (const char* text :
       {"redis+cluster://", "redis+cluster://host/1", "redis+redlock://", "redis+redlock://a,b"}) {
    EXPECT_THROW((void)options_for_scheme(parse_url(text), distlock::Options{}),
                 distlock::ConfigError)
        << text;
    EXPECT_THROW((void)distlock::Client::connect(text), distlock::ConfigError) << text;
    EXPECT_THROW((void)distlock::admin::LockAdmin::connect(text), distlock::ConfigError) << text;
  }
}

}  // namespace
