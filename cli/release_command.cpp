// distlock release NAME --force [--id ACQUISITION_ID]: takes a stuck lock from its holder.
#include <iostream>
#include <optional>

#include "command.h"
#include "lock_json.h"
#include "lock_text.h"

namespace distlock::cli {
namespace {

struct ReleaseOptions {
  std::string name;
  bool force = false;
  std::string acquisition_id;
};

int release(const GlobalOptions& options, const ReleaseOptions& release_options) {
  const auto admin = connect(options);
  const std::string& name = release_options.name;
  if (!release_options.force) {
    // Refused before anything is read or deleted: the holder may still be working.
    throw UsageError(name, admin->server(),
                     "not released: a force-release takes the lock from a holder that may still "
                     "be working under it; give --force (and --id ACQUISITION_ID to release only "
                     "that acquisition's hold)");
  }
  std::optional<std::string> acquisition_id;
  if (!release_options.acquisition_id.empty()) acquisition_id = release_options.acquisition_id;
  const auto released = admin->force_release(name, acquisition_id);
  for (const auto& hold : released) std::cerr << released_text(hold, admin->server()) << '\n';
  if (released.empty())
    std::cerr << Error(name, admin->server(),
                       acquisition_id ? "nothing released: acquisition '" + *acquisition_id +
                                            "' does not hold this lock"
                                      : std::string("nothing released: nobody holds this lock"))
                     .what()
              << '\n';
  if (options.json) {
    nlohmann::json array = nlohmann::json::array();
    for (const auto& hold : released) array.push_back(to_json(hold));
    std::cout
        << nlohmann::json{{"server", admin->server()}, {"name", name}, {"released", array}}.dump(2)
        << '\n';
  }
  return released.empty() ? kNothingFound : kOk;
}

}  // namespace

Subcommand add_release_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "release",
      "Force-release a lock: remove its holds (waiters keep their places; the fence counter is "
      "never reset). The holder's lease turns invalid at its next renewal. Logs what was removed "
      "to stderr. Exit 1 when nothing was released, 2 without --force.");
  auto release_options = std::make_shared<ReleaseOptions>();
  app->add_option("NAME", release_options->name, "The lock name as list shows it")->required();
  app->add_flag("--force", release_options->force,
                "Required: the holder may still be working under the lock");
  app->add_option("--id", release_options->acquisition_id,
                  "Release only this acquisition's hold, and only if it still holds the lock");
  return {app, [release_options](const GlobalOptions& options) {
            return release(options, *release_options);
          }};
}

}  // namespace distlock::cli
