// `floe auth scram-credential`: the SCRAM credential floe.yaml stores for a password
// (auth.principals.<name>.scram-sha-256 / scram-sha-512), so the password itself is never
// written into the configuration. The password is read from standard input (one line), never
// from the command line, where other users could see it in the process list.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "floe/auth/crypto.h"
#include "floe/auth/sasl.h"
#include "floe/base/macros.h"
#include "floe/exe/command.h"

namespace floe::exe {

namespace {

struct ScramArgs {
  std::string mechanism = "SCRAM-SHA-256";
  int iterations = 8192;  // twice the 4096 Kafka clients require at least
};

Status PrintScramCredential(const ScramArgs& a) {
  std::optional<auth::SaslMechanism> mechanism = auth::ParseSaslMechanism(a.mechanism);
  if (!mechanism || (*mechanism != auth::SaslMechanism::kScramSha256 &&
                     *mechanism != auth::SaslMechanism::kScramSha512)) {
    return Status::InvalidArgument("--mechanism must be SCRAM-SHA-256 or SCRAM-SHA-512");
  }
  std::string password;
  if (!std::getline(std::cin, password) || password.empty()) {
    return Status::InvalidArgument("expected the password on standard input (one line)");
  }
  if (!password.empty() && password.back() == '\r') password.pop_back();
  FLOE_ASSIGN_OR_RETURN(std::string salt, auth::RandomBytes(24));
  FLOE_ASSIGN_OR_RETURN(
      auth::ScramCredential credential,
      auth::ComputeScramCredential(auth::ScramHash(*mechanism), password, salt, a.iterations));
  const std::string key =
      *mechanism == auth::SaslMechanism::kScramSha256 ? "scram-sha-256" : "scram-sha-512";
  std::string out = fmt::format(
      "{}:\n  salt: {}\n  iterations: {}\n  stored-key: {}\n  server-key: {}\n", key,
      auth::Base64Encode(credential.salt), credential.iterations,
      auth::Base64Encode(credential.stored_key), auth::Base64Encode(credential.server_key));
  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size()) {
    return Status::IOError("cannot write to standard output");
  }
  return Status::OK();
}

}  // namespace

void AddAuthCommands(CLI::App& app, int* exit_code) {
  auto* group = app.add_subcommand("auth", "Credentials for floe.yaml's auth section");
  group->require_subcommand(1);
  auto a = std::make_shared<ScramArgs>();
  auto* c = group->add_subcommand(
      "scram-credential",
      "Print the SCRAM credential (YAML) of the password read from stdin, for a principal of "
      "auth.principals");
  c->add_option("--mechanism", a->mechanism, "SCRAM-SHA-256 or SCRAM-SHA-512")
      ->capture_default_str();
  c->add_option("--iterations", a->iterations, "PBKDF2 iterations (4096-16384)")
      ->capture_default_str();
  SetCommand(c, exit_code, [a]() { return PrintScramCredential(*a); });
}

}  // namespace floe::exe
