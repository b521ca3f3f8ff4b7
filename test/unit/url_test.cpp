// SPDX-License-Identifier: Apache-2.0
// Lock service URLs: parse_url, Url::redacted and options_from_url. Passwords must never
// reach a message, whether the URL parsed or not.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <distlock/client.h>
#include <distlock/error.h>

#include "core/client_config.h"
#include "util/url.h"

using namespace std::chrono_literals;
using distlock::detail::Endpoint;
using distlock::detail::parse_url;
using distlock::detail::Url;

namespace {

using Query = std::vector<std::pair<std::string, std::string>>;

// ---------------------------------------------------------------------------------------
// Good URLs

TEST(ParseUrl, HostAndPort) {
  const Url url = parse_url("redis://127.0.0.1:6379");
  EXPECT_EQ(url.scheme, "redis");
  EXPECT_FALSE(url.user.has_value());
  EXPECT_FALSE(url.password.has_value());
  ASSERT_EQ(url.endpoints.size(), 1u);
  EXPECT_EQ(url.endpoints[0].host, "127.0.0.1");
  EXPECT_EQ(url.endpoints[0].port, std::optional<std::uint16_t>(6379));
  EXPECT_EQ(url.path, "");
  EXPECT_TRUE(url.query.empty());
}

TEST(ParseUrl, HostWithoutPort) {
  const Url url = parse_url("redis://host");
  ASSERT_EQ(url.endpoints.size(), 1u);
  EXPECT_EQ(url.endpoints[0].host, "host");
  EXPECT_FALSE(url.endpoints[0].port.has_value());
  EXPECT_EQ(url.path, "");
}

TEST(ParseUrl, UserPasswordDatabaseAndQuery) {
  const Url url = parse_url("redis://user:pa%40ss@host:6380/2?connect_timeout=2s");
  EXPECT_EQ(url.scheme, "redis");
  EXPECT_EQ(url.user, std::optional<std::string>("user"));
  EXPECT_EQ(url.password, std::optional<std::string>("pa@ss"));  // percent-decoded
  ASSERT_EQ(url.endpoints.size(), 1u);
  EXPECT_EQ(url.endpoints[0].host, "host");
  EXPECT_EQ(url.endpoints[0].port, std::optional<std::uint16_t>(6380));
  EXPECT_EQ(url.path, "/2");
  EXPECT_EQ(url.query, (Query{{"connect_timeout", "2s"}}));
  EXPECT_EQ(url.query_value("connect_timeout"), std::optional<std::string>("2s"));
  EXPECT_EQ(url.query_value("command_timeout"), std::nullopt);
}

TEST(ParseUrl, PasswordOnly) {
  const Url url = parse_url("redis://:password@host");
  EXPECT_TRUE(!url.user.has_value() || url.user->empty());
  EXPECT_EQ(url.password, std::optional<std::string>("password"));
  ASSERT_EQ(url.endpoints.size(), 1u);
  EXPECT_EQ(url.endpoints[0].host, "host");
  EXPECT_FALSE(url.endpoints[0].port.has_value());
}

TEST(ParseUrl, UserOnly) {
  const Url url = parse_url("redis://alice@host:1");
  EXPECT_EQ(url.user, std::optional<std::string>("alice"));
  EXPECT_FALSE(url.password.has_value());
  EXPECT_EQ(url.endpoints.at(0).port, std::optional<std::uint16_t>(1));
}

TEST(ParseUrl, PasswordWithAtSignAndColon) {
  // The last '@' ends the user info; only the first ':' splits user from password.
  const Url url = parse_url("redis://u:p@ss:w@host:7000");
  EXPECT_EQ(url.user, std::optional<std::string>("u"));
  EXPECT_EQ(url.password, std::optional<std::string>("p@ss:w"));
  ASSERT_EQ(url.endpoints.size(), 1u);
  EXPECT_EQ(url.endpoints[0].host, "host");
  EXPECT_EQ(url.endpoints[0].port, std::optional<std::uint16_t>(7000));
}

TEST(ParseUrl, Ipv6HostInBrackets) {
  const Url url = parse_url("redis://[::1]:6379");
  ASSERT_EQ(url.endpoints.size(), 1u);
  EXPECT_EQ(url.endpoints[0].host, "::1");
  EXPECT_EQ(url.endpoints[0].port, std::optional<std::uint16_t>(6379));

  const Url no_port = parse_url("redis://[fe80::1]");
  ASSERT_EQ(no_port.endpoints.size(), 1u);
  EXPECT_EQ(no_port.endpoints[0].host, "fe80::1");
  EXPECT_FALSE(no_port.endpoints[0].port.has_value());
}

TEST(ParseUrl, UnixSocket) {
  const Url url = parse_url("redis+unix:///tmp/redis.sock?db=3");
  EXPECT_EQ(url.scheme, "redis+unix");
  EXPECT_TRUE(url.endpoints.empty());
  EXPECT_EQ(url.path, "/tmp/redis.sock");
  EXPECT_EQ(url.query, (Query{{"db", "3"}}));
  EXPECT_EQ(url.query_value("db"), std::optional<std::string>("3"));
}

TEST(ParseUrl, MemoryWithoutName) {
  const Url url = parse_url("memory://");
  EXPECT_EQ(url.scheme, "memory");
  EXPECT_TRUE(url.endpoints.empty());
  EXPECT_EQ(url.path, "");
  EXPECT_TRUE(url.query.empty());
  EXPECT_FALSE(url.user.has_value());
  EXPECT_FALSE(url.password.has_value());
}

TEST(ParseUrl, MemoryWithName) {
  // The memory backend takes the shared name from the authority (the "host").
  const Url url = parse_url("memory://shared-name");
  EXPECT_EQ(url.scheme, "memory");
  ASSERT_EQ(url.endpoints.size(), 1u);
  EXPECT_EQ(url.endpoints[0].host, "shared-name");
  EXPECT_FALSE(url.endpoints[0].port.has_value());
  EXPECT_EQ(url.path, "");
}

TEST(ParseUrl, SeveralEndpointsWithChrootAndQuery) {
  const Url url = parse_url("zookeeper://h1:2181,h2:2182/chroot?session_timeout=5s");
  EXPECT_EQ(url.scheme, "zookeeper");
  ASSERT_EQ(url.endpoints.size(), 2u);
  EXPECT_EQ(url.endpoints[0].host, "h1");
  EXPECT_EQ(url.endpoints[0].port, std::optional<std::uint16_t>(2181));
  EXPECT_EQ(url.endpoints[1].host, "h2");
  EXPECT_EQ(url.endpoints[1].port, std::optional<std::uint16_t>(2182));
  EXPECT_EQ(url.path, "/chroot");
  EXPECT_EQ(url.query, (Query{{"session_timeout", "5s"}}));
}

TEST(ParseUrl, SchemeIsLowerCased) {
  EXPECT_EQ(parse_url("REDIS://host").scheme, "redis");
  EXPECT_EQ(parse_url("Memory://").scheme, "memory");
}

TEST(ParseUrl, QueryKeepsOrderAndDecodes) {
  const Url url = parse_url("redis://host?b=2&a=x%20y&b=3");
  EXPECT_EQ(url.query, (Query{{"b", "2"}, {"a", "x y"}, {"b", "3"}}));
  EXPECT_EQ(url.query_value("a"), std::optional<std::string>("x y"));
  EXPECT_EQ(url.query_value("b"), std::optional<std::string>("2"));
}

TEST(ParseUrl, PathIsDecoded) {
  EXPECT_EQ(parse_url("redis+unix:///tmp/my%20redis.sock").path, "/tmp/my redis.sock");
}

TEST(ParseUrl, PortLimits) {
  EXPECT_EQ(parse_url("redis://h:65535").endpoints.at(0).port, std::optional<std::uint16_t>(65535));
  EXPECT_EQ(parse_url("redis://h:1").endpoints.at(0).port, std::optional<std::uint16_t>(1));
}

// ---------------------------------------------------------------------------------------
// redacted()

TEST(Redacted, HidesThePasswordAndTheQuery) {
  const Url url = parse_url("redis://user:pa%40ss@host:6380/2?connect_timeout=2s");
  const std::string shown = url.redacted();
  EXPECT_EQ(shown, "redis://***@host:6380/2");
  EXPECT_EQ(shown.find("pa@ss"), std::string::npos);
  EXPECT_EQ(shown.find("pa%40ss"), std::string::npos);
}

TEST(Redacted, PasswordOnly) {
  EXPECT_EQ(parse_url("redis://:hunter2@host").redacted(), "redis://***@host");
}

// "hunter2@" and "hun:ter2@" may be passwords written without their ':' as well as user names.
TEST(Redacted, TheUserNameIsHiddenToo) {
  EXPECT_EQ(parse_url("redis://hunter2@host:6379/1").redacted(), "redis://***@host:6379/1");
  EXPECT_EQ(parse_url("redis://hun:ter2@host:6379/1").redacted(), "redis://***@host:6379/1");
}

// "locker:@S3cret" may be "locker:S3cret" with a stray '@': an empty password hides the hosts
// too, which may be the password.
TEST(Redacted, AnEmptyPasswordHidesTheHosts) {
  const Url url = parse_url("zookeeper://locker:@pwS3cret,pwS3cret2/chroot");
  EXPECT_TRUE(url.hosts_may_be_secret());
  EXPECT_EQ(url.redacted(), "zookeeper://***@***/chroot");
  EXPECT_EQ(url.secrets(), (std::vector<std::string>{"", "pwS3cret", "pwS3cret2"}));
  EXPECT_FALSE(parse_url("zookeeper://locker:pw@host/chroot").hosts_may_be_secret());
}

TEST(Secrets, ThePasswordAndTheQueryPassword) {
  EXPECT_EQ(parse_url("redis://u:pa%40ss@host?password=other&db=1").secrets(),
            (std::vector<std::string>{"pa@ss", "other"}));
  EXPECT_TRUE(parse_url("redis://host:6379").secrets().empty());
}

// A query value may be a secret (?password=...), whatever its key.
TEST(Redacted, NoQueryValueShows) {
  EXPECT_EQ(parse_url("redis://host?password=hunter2").redacted(), "redis://host");
  EXPECT_EQ(parse_url("redis+unix:///tmp/redis.sock?db=3").redacted(),
            "redis+unix:///tmp/redis.sock");
  EXPECT_EQ(parse_url("zookeeper://h1:2181,h2:2182/chroot?session_timeout=5s").redacted(),
            "zookeeper://h1:2181,h2:2182/chroot");
}

TEST(Redacted, WithoutUserInformationOrQueryTheUrlIsUnchanged) {
  EXPECT_EQ(parse_url("redis://127.0.0.1:6379").redacted(), "redis://127.0.0.1:6379");
  EXPECT_EQ(parse_url("redis://host:6379/1").redacted(), "redis://host:6379/1");
  EXPECT_EQ(parse_url("redis://[::1]:6379").redacted(), "redis://[::1]:6379");
  EXPECT_EQ(parse_url("memory://").redacted(), "memory://");
  EXPECT_EQ(parse_url("memory://shared-name").redacted(), "memory://shared-name");
  EXPECT_EQ(parse_url("redis+unix:///tmp/redis.sock").redacted(), "redis+unix:///tmp/redis.sock");
  EXPECT_EQ(parse_url("zookeeper://h1:2181,h2:2182/chroot").redacted(),
            "zookeeper://h1:2181,h2:2182/chroot");
}

// ---------------------------------------------------------------------------------------
// Bad URLs

std::string config_error_of(std::string_view text) {
  try {
    const Url url = parse_url(text);
    ADD_FAILURE() << "'" << text << "' parsed (scheme '" << url.scheme << "', "
                  << url.endpoints.size() << " endpoints, path '" << url.path << "')";
  } catch (const distlock::ConfigError& e) {
    return e.what();
  }
  return {};
}

// The server() of the ConfigError that parse_url throws for `text`.
std::string shown_server_of(std::string_view text) {
  try {
    (void)parse_url(text);
  } catch (const distlock::ConfigError& e) {
    return e.server();
  }
  return "(parsed)";
}

struct BadUrlCase {
  std::string text;
  std::string shown;  // the error's server(): the URL as far as no secret can be in it
};

void PrintTo(const BadUrlCase& bad, std::ostream* out) { *out << '"' << bad.text << '"'; }

class BadUrl : public ::testing::TestWithParam<BadUrlCase> {};

TEST_P(BadUrl, IsAConfigErrorNamingTheUrlUpToItsQuery) {
  const auto& [text, shown] = GetParam();
  EXPECT_EQ(shown_server_of(text), shown);
  if (!shown.empty()) {
    EXPECT_NE(config_error_of(text).find(shown), std::string::npos);
  }
}

// Without "scheme://" nothing tells a URL from a secret pasted in its place: none of it shows.
// Without an '@', the hosts do not show either: "host:notaport" may be "user:password".
INSTANTIATE_TEST_SUITE_P(
    ParseUrl, BadUrl,
    ::testing::Values(
        BadUrlCase{"", ""}, BadUrlCase{"redis", ""},
        BadUrlCase{"redis://host:notaport", "redis://***"},
        BadUrlCase{"redis://host:70000", "redis://***"}, BadUrlCase{"://x", ""},
        BadUrlCase{"redis://host:6379/abc?x", "redis://***/abc"},
        BadUrlCase{"redis://host:", "redis://***"}, BadUrlCase{"redis://host:0", "redis://***"},
        BadUrlCase{"redis://host:-1", "redis://***"},
        BadUrlCase{"redis://host:6379:1", "redis://***"}, BadUrlCase{"redis://[::1", "redis://***"},
        BadUrlCase{"redis://[::1]x", "redis://***"}, BadUrlCase{"redis://:6379", "redis://***"},
        BadUrlCase{"redis://h1,", "redis://***"}, BadUrlCase{"redis://host/%zz", "redis://***/%zz"},
        BadUrlCase{"redis://host/%4", "redis://***/%4"},
        BadUrlCase{"redis://host?=v", "redis://***"}, BadUrlCase{"redis:/host", ""},
        BadUrlCase{"re dis://host", ""}, BadUrlCase{"redis://u:pw@host:x", "redis://***@host:***"},
        BadUrlCase{"redis://u:p?w@host", "redis://***"},
        BadUrlCase{"redis://host?x=a@b", "redis://***"},
        BadUrlCase{"redis+unix:///run/r.sock?x", "redis+unix:///run/r.sock"},
        BadUrlCase{"redis://u:pw@host/%zz", "redis://***@host/%zz"},
        BadUrlCase{"redis://u:pw@h1:1,[::1]:x,h3:6379:1?x", "redis://***@h1:1,[::1]:***,h3:***"}),
    [](const ::testing::TestParamInfo<BadUrlCase>& info) {
      return "case" + std::to_string(info.index);
    });

class BadUrlWithPassword : public ::testing::TestWithParam<std::string> {};

TEST_P(BadUrlWithPassword, MessageNamesTheRedactedUrlAndNeverThePassword) {
  const std::string& text = GetParam();
  const std::string what = config_error_of(text);
  EXPECT_EQ(what.find("s3cr3t"), std::string::npos) << what;
  EXPECT_NE(what.find("***"), std::string::npos) << what;
  EXPECT_EQ(shown_server_of(text).find("s3cr3t"), std::string::npos) << shown_server_of(text);
}

INSTANTIATE_TEST_SUITE_P(
    ParseUrl, BadUrlWithPassword,
    ::testing::Values("redis://user:s3cr3t@host:notaport", "redis://:s3cr3t@host:70000",
                      "redis://user:s3cr3t@host:6379/abc?x", "redis://user:s3cr3t@host/%zz",
                      "redis://user:s3cr3t@[::1", "redis://user:s3cr3t@host?=1",
                      "redis://user:s3cr3t@:6379", "redis://user:s3cr3t/x@host:port",
                      // A '?' or '#' in a password: where the user information ends is unsure.
                      "redis://u:s3cr?t3t@host", "redis://u:s3cr3t?@host:6379",
                      "redis://u:s3#cr3t@host", "redis://u:s3/cr?3t@host:x",
                      "zookeeper://u:s3cr?t3t@127.0.0.1:2181",
                      "redis+sentinel://u:s3cr?t3t@127.0.0.1:26379/master",
                      "redis://u:s3cr3t@host?password=s3cr3t&x", "redis://u:s3cr3t%zz@host",
                      "redis://u:s3cr3t%4@host"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      return "case" + std::to_string(info.index);
    });

// A password where no user information is: in the query, in a text that is no URL, or where a
// URL's '@' and hosts were forgotten ("u:s3cr3t" reads as a host and a port).
class BadUrlWithStraySecret : public ::testing::TestWithParam<std::string> {};

TEST_P(BadUrlWithStraySecret, MessageNeverShowsIt) {
  const std::string& text = GetParam();
  const std::string what = config_error_of(text);
  EXPECT_EQ(what.find("s3cr3t"), std::string::npos) << what;
  EXPECT_EQ(shown_server_of(text).find("s3cr3t"), std::string::npos) << shown_server_of(text);
}

INSTANTIATE_TEST_SUITE_P(
    ParseUrl, BadUrlWithStraySecret,
    ::testing::Values("redis://:s3cr3t", "redis://u:s3cr3t", "redis+cluster://u:s3cr3t,h2:6379",
                      "zookeeper://admin:s3cr3t/chroot", "etcd://admin:s3cr3t?x",
                      "redis://[::1]:s3cr3t", "redis://host?password=s3cr3t&x",
                      "redis://host:x?password=s3cr3t", "redis://host?s3cr3t",
                      "redis://host?password&s3cr3t", "redis://host?password=s3cr3t%zz",
                      "redis://host?password=s3cr3t@x", "s3cr3t", "redis:u:s3cr3t@host",
                      "redis:/u:s3cr3t@host", "re dis://u:s3cr3t@host", "u:s3cr3t@redis://host"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      return "case" + std::to_string(info.index);
    });

// RFC 3986 has no '?' or '#' in user information; accepting them would guess between a password
// holding '?' and a query value holding '@'. Either guess could send the password's tail to a
// server as a host name.
TEST(ParseUrl, QuestionMarkOrHashBeforeTheLastAtSignIsAnError) {
  for (const char* text : {"redis://u:p?w@host", "redis://u:p#w@host", "redis://host?x=a@b"}) {
    const std::string what = config_error_of(text);
    EXPECT_NE(what.find("%3F"), std::string::npos) << what;
    EXPECT_NE(what.find("%40"), std::string::npos) << what;
  }
}

// The user information ends at the last '@', so an '@' in a path would start the host.
TEST(ParseUrl, AtSignInAPathWithoutHostIsAnError) {
  const std::string what = config_error_of("redis+unix:///run/redis@main.sock");
  EXPECT_NE(what.find("%40"), std::string::npos) << what;
  EXPECT_EQ(parse_url("redis+unix:///run/redis%40main.sock").path, "/run/redis@main.sock");
}

TEST(ParseUrl, QueryItemWithoutEqualsSignIsNamedByItsPlace) {
  const std::string what = config_error_of("redis://host?connect_timeout=1s&hunter2");
  EXPECT_EQ(what.find("hunter2"), std::string::npos) << what;
  EXPECT_NE(what.find("query parameter 2"), std::string::npos) << what;
}

// A password as generated secrets often are: with '/' not escaped.
TEST(ParseUrl, PasswordWithSlashIsNotTakenForAPath) {
  const Url url = parse_url("redis://user:s3cr3t/x@host:6379/2");
  EXPECT_EQ(url.password, "s3cr3t/x");
  ASSERT_EQ(url.endpoints.size(), 1u);
  EXPECT_EQ(url.endpoints[0].host, "host");
  EXPECT_EQ(url.path, "/2");
  EXPECT_EQ(url.redacted(), "redis://***@host:6379/2");
}

// For a URL another parser reads (libpq): the user information by parse_url's rule, as written.
TEST(RawUserinfo, EndsAtTheLastAtSignAndIsRefusedWhereParseUrlRefusesIt) {
  EXPECT_EQ(distlock::detail::raw_userinfo("postgresql://u:s3/cr@t@host/db"), "u:s3/cr@t");
  EXPECT_EQ(distlock::detail::raw_userinfo("postgresql://host/db?x=1"), std::nullopt);
  EXPECT_THROW((void)distlock::detail::raw_userinfo("postgresql://u:p?w@host"),
               distlock::ConfigError);
  EXPECT_EQ(distlock::detail::redacted_raw("postgresql://u:s3/cr@t@host/db?password=x"),
            "postgresql://***@host/db");
}

// parse_url knows no schemes; the Redis backend wants a host.
TEST(ClientConnect, RedisUrlWithoutHostIsAConfigError) {
  EXPECT_THROW(distlock::Client::connect("redis://"), distlock::ConfigError);
}

// ---------------------------------------------------------------------------------------
// options_from_url

const std::initializer_list<std::string_view> kRedisKeys = {"connect_timeout", "command_timeout",
                                                            "max_connections"};

distlock::Options options_of(std::string_view text,
                             std::initializer_list<std::string_view> known = kRedisKeys) {
  return distlock::detail::options_from_url(parse_url(text), distlock::Options{}, known);
}

TEST(OptionsFromUrl, NoQueryKeepsTheDefaults) {
  const distlock::Options defaults;
  const distlock::Options options = options_of("redis://host");
  EXPECT_EQ(options.connect_timeout, defaults.connect_timeout);
  EXPECT_EQ(options.command_timeout, defaults.command_timeout);
  EXPECT_EQ(options.max_connections, defaults.max_connections);
  EXPECT_EQ(options.renew_fraction, defaults.renew_fraction);
}

TEST(OptionsFromUrl, ConnectTimeoutIsApplied) {
  const distlock::Options defaults;
  const distlock::Options options = options_of("redis://host?connect_timeout=500ms");
  EXPECT_EQ(options.connect_timeout, 500ms);
  EXPECT_EQ(options.command_timeout, defaults.command_timeout);
  EXPECT_EQ(options.max_connections, defaults.max_connections);
}

TEST(OptionsFromUrl, AllParameters) {
  const distlock::Options options =
      options_of("redis://host?connect_timeout=2s&command_timeout=1m30s&max_connections=4");
  EXPECT_EQ(options.connect_timeout, 2s);
  EXPECT_EQ(options.command_timeout, 90s);
  EXPECT_EQ(options.max_connections, 4u);
}

TEST(OptionsFromUrl, StartsFromTheGivenOptions) {
  distlock::Options given;
  given.command_timeout = 123ms;
  given.renew_fraction = 0.5;
  const distlock::Options options = distlock::detail::options_from_url(
      parse_url("redis://host?connect_timeout=1s"), given, kRedisKeys);
  EXPECT_EQ(options.connect_timeout, 1s);
  EXPECT_EQ(options.command_timeout, 123ms);
  EXPECT_EQ(options.renew_fraction, 0.5);
}

TEST(OptionsFromUrl, KnownParameterOfTheBackendIsAccepted) {
  EXPECT_NO_THROW(
      (void)options_of("redis+unix:///tmp/r.sock?db=3",
                       {"connect_timeout", "command_timeout", "max_connections", "db"}));
}

TEST(OptionsFromUrl, UnknownParameterIsAConfigError) {
  EXPECT_THROW((void)options_of("redis://host?bogus=1"), distlock::ConfigError);
  EXPECT_THROW((void)options_of("redis://host?connect_timeout=1s&conect_timeout=2s"),
               distlock::ConfigError);
  // Nothing is known to a backend that takes no parameters.
  EXPECT_THROW((void)options_of("memory://?connect_timeout=1s", {}), distlock::ConfigError);
  try {
    (void)options_of("redis://host?bogus=1");
  } catch (const distlock::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bogus"), std::string::npos) << e.what();
  }
}

class BadOptionValue : public ::testing::TestWithParam<std::string> {};

TEST_P(BadOptionValue, IsAConfigError) {
  EXPECT_THROW((void)options_of(GetParam()), distlock::ConfigError);
}

INSTANTIATE_TEST_SUITE_P(
    OptionsFromUrl, BadOptionValue,
    ::testing::Values("redis://host?connect_timeout=abc", "redis://host?connect_timeout=30",
                      "redis://host?connect_timeout=", "redis://host?command_timeout=-1s",
                      "redis://host?connect_timeout=0s", "redis://host?max_connections=abc",
                      "redis://host?max_connections=-1", "redis://host?max_connections=0",
                      "redis://host?max_connections=4x",
                      "redis://host?max_connections=99999999999"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      return "case" + std::to_string(info.index);
    });

TEST(OptionsFromUrl, ZeroTimeoutMessageSaysItMustBePositive) {
  try {
    (void)options_of("redis://host?connect_timeout=0s");
    ADD_FAILURE() << "no ConfigError";
  } catch (const distlock::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("connect_timeout"), std::string::npos) << what;
    EXPECT_NE(what.find("positive"), std::string::npos) << what;
  }
}

TEST(OptionsFromUrl, ErrorsNameTheRedactedUrlWithoutThePassword) {
  for (const char* text :
       {"redis://user:s3cr3t@host?bogus=1", "redis://user:s3cr3t@host?connect_timeout=abc",
        "redis://:s3cr3t@host?max_connections=none"}) {
    try {
      (void)options_of(text);
      ADD_FAILURE() << text << ": no ConfigError";
    } catch (const distlock::ConfigError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find("s3cr3t"), std::string::npos) << what;
      EXPECT_NE(what.find("***@host"), std::string::npos) << what;
    }
  }
}

// A query value may be the password (?password=...): errors name the key and what is wrong.
TEST(OptionsFromUrl, ErrorsNameTheKeyAndNeverShowTheValue) {
  for (const char* text :
       {"redis://host?connect_timeout=s3cr3t", "redis://host?max_connections=s3cr3t",
        "redis://host?command_timeout=-s3cr3t", "redis://host?password=s3cr3t",
        "redis://host?s3cr3t=1"}) {
    try {
      (void)options_of(text);
      ADD_FAILURE() << text << ": no ConfigError";
    } catch (const distlock::ConfigError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find("s3cr3t="), std::string::npos) << what;
      EXPECT_EQ(what.find("=s3cr3t"), std::string::npos) << what;
      EXPECT_EQ(what.find("-s3cr3t"), std::string::npos) << what;
      EXPECT_NE(what.find("query parameter '"), std::string::npos) << what;
    }
  }
}

TEST(OptionsFromUrl, PasswordParameterSaysWhereAPasswordGoes) {
  try {
    (void)options_of("redis://host?password=hunter2");
    ADD_FAILURE() << "no ConfigError";
  } catch (const distlock::ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find("hunter2"), std::string::npos) << what;
    EXPECT_NE(what.find("user:password@"), std::string::npos) << what;
  }
}

// The values the backends read themselves (db, min_replicas, reply_spin_us) are not shown either.
TEST(ClientConnect, BadBackendValuesAreNamedByTheirKeyOnly) {
  for (const char* text :
       {"redis+sentinel://127.0.0.1:1/master?db=s3cr3t", "redis+unix:///tmp/no.sock?db=s3cr3t",
        "redis://127.0.0.1:1?min_replicas=s3cr3t", "redis://127.0.0.1:1?reply_spin_us=s3cr3t"}) {
    try {
      distlock::Client::connect(text);
      ADD_FAILURE() << text << ": no ConfigError";
    } catch (const distlock::ConfigError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find("s3cr3t"), std::string::npos) << what;
      EXPECT_TRUE(what.find("'db'") != std::string::npos ||
                  what.find("'min_replicas'") != std::string::npos ||
                  what.find("'reply_spin_us'") != std::string::npos)
          << what;
    }
  }
}

// A spin past 10 ms would only burn a core: refused, with the range.
TEST(ClientConnect, AReplySpinBeyondItsRangeIsAConfigError) {
  try {
    distlock::Client::connect("redis://127.0.0.1:1?reply_spin_us=20000");
    ADD_FAILURE() << "no ConfigError";
  } catch (const distlock::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("from 0 (never) to 10000"), std::string::npos) << e.what();
  }
}

}  // namespace

// Redis has no login by user name alone: a user without a password would be dropped, and the
// commands would run as the default user. The URL is refused before any connection is made
// (port 9 refuses connections: had it been tried, the error would be BackendUnavailable).
TEST(RedisUrl, AUserWithoutAPasswordIsAConfigError) {
  for (const char* url : {"redis://alice@127.0.0.1:9", "redis+sentinel://alice@127.0.0.1:9/m"}) {
    try {
      (void)distlock::Client::connect(url);
      ADD_FAILURE() << url << ": no ConfigError";
    } catch (const distlock::ConfigError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("a user without a password"), std::string::npos) << what;
      EXPECT_EQ(what.find("alice"), std::string::npos) << "it may be a password: " << what;
    }
  }
}
