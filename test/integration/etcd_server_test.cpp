// SPDX-License-Identifier: Apache-2.0
// The private etcd servers of test/support: a member starts, answers, keeps its data and ports
// across a restart and a kill, freezes; etcdctl's own lock excludes a second one; a server with
// authentication refuses anonymous clients; one with TLS serves https:// only, and when it asks,
// only clients with a certificate; a three-member cluster elects a new leader when its leader
// is killed.
#include "etcd_server.h"

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "redis_server.h"  // lines_of
#include "subprocess.h"
#include "tls_files.h"

namespace distlock::testing {
namespace {

using std::chrono::milliseconds;
constexpr auto kDeadline = std::chrono::seconds(30);

// The keys under `prefix`, oldest (lowest create revision) first.
std::vector<std::string> keys_by_creation(const EtcdServer& server, const std::string& prefix) {
  std::vector<std::string> keys;
  for (const auto& line : lines_of(server.etcdctl(
           {"get", "--prefix", prefix, "--keys-only", "--sort-by=CREATE", "--order=ASCEND"}))) {
    if (!line.empty()) keys.push_back(line);
  }
  return keys;
}

// Polls until `count` keys exist under `prefix`; they are returned oldest first.
std::vector<std::string> await_keys(const EtcdServer& server, const std::string& prefix,
                                    std::size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + kDeadline;
  for (;;) {
    auto keys = keys_by_creation(server, prefix);
    if (keys.size() >= count || std::chrono::steady_clock::now() >= deadline) return keys;
    std::this_thread::sleep_for(milliseconds(10));
  }
}

long long create_revision(const EtcdServer& server, const std::string& key) {
  const std::string json = server.etcdctl({"get", key, "-w", "json"});
  const std::string field = "\"create_revision\":";
  const auto at = json.find(field);
  if (at == std::string::npos)
    throw std::runtime_error("no create_revision for " + key + ": " + json);
  return std::stoll(json.substr(at + field.size()));
}

bool process_exists(int pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

// etcdctl run by hand against `endpoint` with these arguments: its exit status and all it wrote.
std::pair<ExitStatus, std::string> anonymous_etcdctl(const std::string& endpoint,
                                                     const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"--endpoints=" + endpoint};
  argv.insert(argv.end(), args.begin(), args.end());
  Subprocess::Options options;
  options.merge_stderr = true;
  options.environment = {"ETCDCTL_API=3"};
  Subprocess process(etcdctl_executable(), argv, options);
  std::string output = process.read_all(kDeadline);
  return {process.wait(kDeadline), output};
}

TEST(EtcdServer, AnswersAndLeavesNothingBehind) {
  std::filesystem::path directory;
  {
    EtcdServer server;
    directory = server.directory();
    EXPECT_EQ(server.endpoint(), "127.0.0.1:" + std::to_string(server.port()));
    EXPECT_EQ(server.url(), "etcd://" + server.endpoint());
    EXPECT_EQ(server.url_with_credentials(), server.url());
    EXPECT_FALSE(server.credentials());
    EXPECT_NE(server.port(), server.peer_port());
    EXPECT_TRUE(server.running());
    EXPECT_TRUE(process_exists(server.pid()));

    server.etcdctl({"put", "greeting", "hello"});
    EXPECT_EQ(server.etcdctl({"get", "greeting", "--print-value-only"}), "hello");
    EXPECT_EQ(server.etcdctl({"get", "no-such-key"}), "");
    EXPECT_THROW(server.etcdctl({"no-such-command"}), std::runtime_error);
  }
  EXPECT_FALSE(std::filesystem::exists(directory)) << directory;
}

TEST(EtcdServer, RestartKeepsTheDataAndThePorts) {
  EtcdServer server;
  const auto port = server.port();
  const auto peer_port = server.peer_port();
  const int first_pid = server.pid();
  server.etcdctl({"put", "kept", "before the restart"});

  server.stop();
  EXPECT_FALSE(server.running());
  EXPECT_EQ(server.pid(), -1);
  EXPECT_FALSE(process_exists(first_pid));
  server.restart();

  EXPECT_EQ(server.port(), port);
  EXPECT_EQ(server.peer_port(), peer_port);
  EXPECT_NE(server.pid(), first_pid);
  EXPECT_EQ(server.etcdctl({"get", "kept", "--print-value-only"}), "before the restart");
}

TEST(EtcdServer, AKillIsSeenAndTheDataSurvivesIt) {
  EtcdServer server;
  server.etcdctl({"put", "committed", "before the kill"});
  const int pid = server.pid();

  server.kill();

  EXPECT_FALSE(server.running());
  EXPECT_EQ(server.pid(), -1);
  EXPECT_FALSE(process_exists(pid));
  EXPECT_THROW(server.etcdctl({"--dial-timeout=1s", "--command-timeout=1s", "get", "committed"}),
               std::runtime_error);
  server.restart();
  EXPECT_EQ(server.etcdctl({"get", "committed", "--print-value-only"}), "before the kill");
}

TEST(EtcdServer, AFrozenServerAnswersNothingUntilThawed) {
  EtcdServer server;
  server.freeze();
  EXPECT_TRUE(server.running());
  EXPECT_THROW(server.etcdctl({"--command-timeout=500ms", "put", "while", "frozen"}),
               std::runtime_error);
  server.thaw();
  server.etcdctl({"put", "after", "thawing"});
  EXPECT_EQ(server.etcdctl({"get", "after", "--print-value-only"}), "thawing");
}

// etcdctl lock is etcd's concurrency.Mutex, the layout of the etcd:// backend (issue 32): each
// contender puts <name>/<lease id in hex>, the oldest key holds, the others wait for the key
// before theirs to go. etcdctl prints its key once it holds the lock.
TEST(EtcdServer, EtcdctlLockMakesASecondLockWait) {
  EtcdServer server;
  const std::string name = "/distlock/test/etcdctl-lock";
  const auto first = server.start_etcdctl({"lock", name});
  const auto first_key = first->read_line(kDeadline);
  ASSERT_TRUE(first_key);
  EXPECT_EQ(first_key->rfind(name + "/", 0), 0u) << *first_key;

  const auto second = server.start_etcdctl({"lock", name});
  const auto keys = await_keys(server, name, 2);
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0], *first_key);
  EXPECT_LT(create_revision(server, keys[0]), create_revision(server, keys[1]));
  // Its key is put, so it has asked; as long as the first key exists it waits.
  EXPECT_THROW(second->read_line(milliseconds(0)), std::runtime_error);

  // etcdctl unlocks on SIGINT (and SIGTERM); a SIGKILL leaves its key to its lease (below).
  first->kill(SIGINT);
  EXPECT_TRUE(first->wait(kDeadline).success());
  EXPECT_EQ(second->read_line(kDeadline), keys[1]);
  EXPECT_EQ(keys_by_creation(server, name), std::vector<std::string>{keys[1]});
  second->kill(SIGINT);
  EXPECT_TRUE(second->wait(kDeadline).success());
  EXPECT_TRUE(keys_by_creation(server, name).empty());
}

// A holder that dies without unlocking leaves its key to its lease: 1 s is the shortest lease
// these servers grant (EtcdConfig).
TEST(EtcdServer, AKilledHoldersLockPassesOnWhenItsLeaseExpires) {
  EtcdServer server;
  const std::string name = "/distlock/test/killed-holder";
  const auto first = server.start_etcdctl({"lock", "--ttl=1", name});
  ASSERT_TRUE(first->read_line(kDeadline));
  const auto second = server.start_etcdctl({"lock", name});
  ASSERT_EQ(await_keys(server, name, 2).size(), 2u);

  first->kill(SIGKILL);
  const auto second_key = second->read_line(kDeadline);
  ASSERT_TRUE(second_key);
  EXPECT_EQ(keys_by_creation(server, name), std::vector<std::string>{*second_key});
  second->kill(SIGINT);
  EXPECT_TRUE(second->wait(kDeadline).success());
}

TEST(EtcdServer, AuthenticationRefusesAnonymousClients) {
  EtcdConfig config;
  config.authentication = true;
  EtcdServer server(config);
  ASSERT_TRUE(server.credentials());
  const auto& credentials = *server.credentials();
  EXPECT_EQ(credentials.user, "root");
  EXPECT_FALSE(credentials.password.empty());
  EXPECT_EQ(server.url_with_credentials(),
            "etcd://root:" + credentials.password + "@" + server.endpoint());

  server.etcdctl({"put", "secret", "value"});
  EXPECT_EQ(server.etcdctl({"get", "secret", "--print-value-only"}), "value");
  const auto [anonymous, anonymous_output] =
      anonymous_etcdctl(server.endpoint(), {"get", "secret"});
  EXPECT_FALSE(anonymous.success()) << anonymous_output;
  EXPECT_NE(anonymous_output.find("user name is empty"), std::string::npos) << anonymous_output;
  const auto [wrong, wrong_output] =
      anonymous_etcdctl(server.endpoint(), {"--user=root:not-the-password", "get", "secret"});
  EXPECT_FALSE(wrong.success()) << wrong_output;
  EXPECT_NE(wrong_output.find("authentication failed"), std::string::npos) << wrong_output;

  // Authentication is in the data: still on after a restart, whose readiness check logs in.
  server.restart();
  EXPECT_EQ(server.etcdctl({"get", "secret", "--print-value-only"}), "value");
  EXPECT_FALSE(anonymous_etcdctl(server.endpoint(), {"get", "secret"}).first.success());
}

TEST(EtcdServer, TlsServesHttpsOnlyAndRequiresAClientCertificateWhenAsked) {
  EtcdConfig config;
  config.tls = ServerTls::of_test_ca(/*client_certificates_required=*/true);
  config.authentication = true;
  EtcdServer server(config);
  ASSERT_TRUE(server.credentials());
  const std::string user = "--user=root:" + server.credentials()->password;
  EXPECT_EQ(server.url(), "etcds://" + server.endpoint());
  EXPECT_EQ(server.url_with_credentials(),
            "etcds://root:" + server.credentials()->password + "@" + server.endpoint());

  server.etcdctl({"put", "greeting", "hello"});
  EXPECT_EQ(server.etcdctl({"get", "greeting", "--print-value-only"}), "hello");
  const std::vector<std::string> quick = {"--dial-timeout=1s", "--command-timeout=1s"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), quick.begin(), quick.end());
    args.insert(args.end(), {user, "get", "greeting", "--print-value-only"});
    return args;
  };
  const auto [plain, plain_output] = anonymous_etcdctl(server.endpoint(), with({}));
  EXPECT_FALSE(plain.success()) << plain_output;
  const auto [withheld, withheld_output] = anonymous_etcdctl(
      "https://" + server.endpoint(), with({"--cacert=" + tls_files().ca.string()}));
  EXPECT_FALSE(withheld.success()) << withheld_output;
  // The control: the same call with the client's certificate is served.
  const auto [given, given_output] = anonymous_etcdctl(
      "https://" + server.endpoint(), with({"--cacert=" + tls_files().ca.string(),
                                            "--cert=" + tls_files().client.certificate.string(),
                                            "--key=" + tls_files().client.key.string()}));
  EXPECT_TRUE(given.success()) << given_output;
  EXPECT_NE(given_output.find("hello"), std::string::npos) << given_output;
}

TEST(EtcdServerCluster, ElectsANewLeaderAfterItsLeaderIsKilled) {
  EtcdCluster cluster;
  std::string endpoints;
  for (int i = 0; i < EtcdCluster::kSize; ++i) {
    endpoints += (i == 0 ? "" : ",") + cluster.member(i).endpoint();
  }
  EXPECT_EQ(cluster.endpoints(), endpoints);
  EXPECT_EQ(cluster.url(), "etcd://" + endpoints);
  cluster.etcdctl({"put", "replicated", "before the election"});

  const int leader = cluster.leader_index();
  const int leader_pid = cluster.member(leader).pid();
  cluster.member(leader).kill();
  EXPECT_FALSE(process_exists(leader_pid));
  const int new_leader = cluster.leader_index();
  EXPECT_NE(new_leader, leader);
  EXPECT_TRUE(cluster.member(new_leader).running());
  EXPECT_EQ(cluster.etcdctl({"get", "replicated", "--print-value-only"}), "before the election");
  cluster.etcdctl({"put", "written", "without the old leader"});

  // The old leader comes back and catches up with what was written without it.
  cluster.member(leader).restart();
  EXPECT_EQ(cluster.member(leader).etcdctl({"get", "written", "--print-value-only"}),
            "without the old leader");
  EXPECT_TRUE(cluster.member(cluster.leader_index()).running());
}

}  // namespace
}  // namespace distlock::testing
