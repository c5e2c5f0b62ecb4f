// `floe optimizer --server URL --group G --threads N [--memory-mb M]`: a standalone optimizer
// worker over the task protocol (docs/optimizer-groups.md, DESIGN.md §6); `floe group
// create|list|drop`: the server's optimizer groups; both through the management API.
//
// The worker registers (-> id and token), heartbeats on its own thread and runs N executor
// threads that poll, ack, run and complete tasks. A token the server no longer knows
// (it restarted, or the heartbeat timed out) means registering again. SIGTERM or SIGINT,
// or a drain through the API, stop the polling: the tasks running finish and complete,
// then the worker unregisters and exits 0.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "floe/base/json.h"
#include "floe/exe/api_client.h"
#include "floe/exe/command.h"
#include "floe/http/http.h"
#include "floe/http/http_client.h"
#include "floe/io/s3/make_file_io.h"
#include "floe/optimize/task_codec.h"

namespace floe::exe {

namespace {

using Json = nlohmann::json;

struct Endpoint {
  std::string server = "http://127.0.0.1:8181";
  std::string token;  // the principal's bearer token when the server has auth enabled
};

struct Reply {
  int status = 0;
  Json body;  // discarded when the answer has no JSON
  http::ClientResponse response;
};

// One call of the management API; transport errors are the Status, HTTP errors the reply.
Result<Reply> Send(http::HttpClient& client, const Endpoint& e, const std::string& method,
                   const std::string& path, const std::string& body,
                   const std::string& optimizer_token = {}) {
  std::vector<std::pair<std::string, std::string>> headers;
  if (!optimizer_token.empty()) headers.emplace_back("X-Floe-Optimizer-Token", optimizer_token);
  FLOE_ASSIGN_OR_RETURN(
      http::ClientResponse response,
      SendApiRequest(client, e.server, e.token, method, path, body, std::move(headers)));
  Reply r;
  r.status = response.status;
  if (!response.body.empty()) {
    // A hand-out holds a task input (table metadata included) a level down: the stored limit.
    r.body = ParseJson(response.body, kMaxStoredJsonDepth).value_or(Json(Json::value_t::discarded));
  }
  r.response = std::move(response);
  return r;
}

Status ReplyError(const Reply& r, std::string_view what) { return ApiError(r.response, what); }

Status Print(const std::string& text) {
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    return Status::IOError("cannot write to standard output");
  }
  std::fflush(stdout);
  return Status::OK();
}

void AddEndpointFlags(CLI::App* c, Endpoint* e) {
  c->add_option("--server", e->server, "The floe server's base URL")
      ->envname("FLOE_SERVER")
      ->capture_default_str();
  c->add_option("--token", e->token, "Bearer token when the server has auth enabled")
      ->envname("FLOE_TOKEN");
}

struct WorkerArgs {
  Endpoint endpoint;
  std::string group = "local";
  int threads = 1;
  int64_t memory_mb = 0;
  std::string spill_dir;
  int64_t heartbeat_ms = 10'000;
};

// The worker's shared state: its registration and whether it stops.
class Worker {
 public:
  explicit Worker(WorkerArgs args) : args_(std::move(args)) {}

  Status Run() {
    if (args_.threads < 1 || args_.threads > 1024) {
      return Status::InvalidArgument("--threads must be 1 to 1024");
    }
    if (args_.heartbeat_ms < 100) return Status::InvalidArgument("--heartbeat-ms must be >= 100");
    // Blocked before any thread starts, so that only the signal thread sees them.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);

    FLOE_ASSIGN_OR_RETURN(auto client, http::HttpClient::Make());
    FLOE_RETURN_IF_ERROR(Register(*client));
    std::fprintf(stderr, "floe optimizer %s: group %s, %d thread(s), server %s\n", Id().c_str(),
                 args_.group.c_str(), args_.threads, args_.endpoint.server.c_str());

    std::vector<std::thread> executors;
    for (int i = 0; i < args_.threads; ++i) executors.emplace_back([this, i] { Execute(i); });
    std::thread heartbeat([this] { Heartbeat(); });
    std::thread signal_thread([this, signals] {
      timespec wait{0, 200'000'000};
      while (!Stopping()) {
        int sig = sigtimedwait(&signals, nullptr, &wait);
        if (sig == SIGTERM || sig == SIGINT) {
          std::fprintf(stderr, "floe optimizer: %s: draining (running tasks finish)\n",
                       sig == SIGTERM ? "SIGTERM" : "SIGINT");
          Stop();
        }
      }
    });
    for (std::thread& t : executors) t.join();
    Stop();
    heartbeat.join();
    signal_thread.join();
    // Its tasks are done: the server forgets it now rather than at the heartbeat timeout.
    auto reply = Send(*client, args_.endpoint, "DELETE", "/optimizers/" + Id(), "", Token());
    (void)reply;
    std::fprintf(stderr, "floe optimizer %s: stopped (%lld tasks completed, %lld failed)\n",
                 Id().c_str(), static_cast<long long>(completed_.load()),
                 static_cast<long long>(failed_.load()));
    return Status::OK();
  }

 private:
  Status Register(http::HttpClient& client) {
    Json body = {
        {"group", args_.group}, {"threads", args_.threads}, {"memory-mb", args_.memory_mb}};
    FLOE_ASSIGN_OR_RETURN(Reply r,
                          Send(client, args_.endpoint, "POST", "/optimizers", body.dump()));
    if (r.status != 201 || !r.body.is_object() || !r.body.contains("token")) {
      return ReplyError(r, "register");
    }
    std::lock_guard lock(mu_);
    id_ = r.body.value("id", std::string());
    token_ = r.body.value("token", std::string());
    return Status::OK();
  }

  std::string Id() const {
    std::lock_guard lock(mu_);
    return id_;
  }
  std::string Token() const {
    std::lock_guard lock(mu_);
    return token_;
  }
  bool Stopping() const {
    std::lock_guard lock(mu_);
    return stopping_;
  }
  void Stop() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
  }
  // Sleeps up to `ms` unless stopped; false when stopped.
  bool Sleep(int64_t ms) {
    std::unique_lock lock(mu_);
    return !cv_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stopping_; });
  }

  // A 401 means the server forgot this optimizer: register again (once, whoever sees it
  // first).
  void Reregister(http::HttpClient& client, const std::string& stale_token) {
    std::lock_guard register_lock(register_mu_);
    if (Token() != stale_token) return;
    Status st = Register(client);
    if (st.ok()) {
      std::fprintf(stderr, "floe optimizer: registered again as %s\n", Id().c_str());
    } else {
      std::fprintf(stderr, "floe optimizer: register failed: %s\n", st.ToString().c_str());
    }
  }

  void Heartbeat() {
    auto client = http::HttpClient::Make();
    if (!client.ok()) return;
    while (Sleep(args_.heartbeat_ms)) {
      const std::string token = Token();
      auto r =
          Send(**client, args_.endpoint, "POST", "/optimizers/" + Id() + "/heartbeat", "", token);
      if (!r.ok()) {
        std::fprintf(stderr, "floe optimizer: heartbeat: %s\n", r.status().ToString().c_str());
        continue;
      }
      if (r->status == 401) {
        Reregister(**client, token);
      } else if (r->status == 200 && r->body.is_object() && r->body.value("draining", false)) {
        std::fprintf(stderr, "floe optimizer: drained by the server\n");
        Stop();
      }
    }
  }

  void Execute(int thread) {
    auto client = http::HttpClient::Make();
    if (!client.ok()) return;
    int64_t backoff_ms = 200;
    while (!Stopping()) {
      const std::string token = Token();
      const std::string path = "/optimizers/" + Id();
      auto r = Send(**client, args_.endpoint, "POST", path + "/poll",
                    Json{{"thread", thread}}.dump(), token);
      if (!r.ok() || r->status == 204 || r->status != 200) {
        if (r.ok() && r->status == 401) Reregister(**client, token);
        if (r.ok() && r->status != 204 && r->status != 401) {
          std::fprintf(stderr, "floe optimizer: poll: %s\n",
                       ReplyError(*r, "poll").ToString().c_str());
        } else if (!r.ok()) {
          std::fprintf(stderr, "floe optimizer: poll: %s\n", r.status().ToString().c_str());
        }
        // Nothing to do: back off up to 5 s (a new task waits at most that long).
        Sleep(backoff_ms);
        backoff_ms = std::min<int64_t>(backoff_ms * 2, 5'000);
        continue;
      }
      backoff_ms = 200;
      RunOne(**client, token, path, r->body);
    }
  }

  void RunOne(http::HttpClient& client, const std::string& token, const std::string& path,
              const Json& handout) {
    if (!handout.is_object() || !handout.contains("task")) return;
    Json ids = {{"process-id", handout.value("process-id", int64_t{0})},
                {"task-id", handout.value("task-id", int64_t{0})},
                {"attempt", handout.value("attempt", int64_t{0})}};
    auto acked = Send(client, args_.endpoint, "POST", path + "/ack", ids.dump(), token);
    // Refused: the hand-out timed out meanwhile; another attempt owns the task.
    if (!acked.ok() || acked->status != 204) return;
    const auto started = std::chrono::steady_clock::now();
    std::unique_ptr<io::FileIO> io;
    std::optional<optimize::TaskOutput> output;
    Status status = [&]() -> Status {
      FLOE_ASSIGN_OR_RETURN(optimize::TaskInput input,
                            optimize::DecodeTaskInput(handout["task"].dump()));
      FLOE_ASSIGN_OR_RETURN(io, io::s3::MakeFileIO(input.io_properties, std::getenv));
      FLOE_ASSIGN_OR_RETURN(
          output, optimize::RunTask(input, *io, ids["attempt"].get<int64_t>(), LocalOptions()));
      return Status::OK();
    }();
    Json done = ids;
    if (status.ok()) {
      done["output"] = Json::parse(optimize::EncodeTaskOutput(*output));
    } else {
      done["error"] = status.ToString();
    }
    auto completed = Send(client, args_.endpoint, "POST", path + "/complete", done.dump(), token);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const bool accepted = completed.ok() && completed->status == 204;
    if (!accepted && output && io) {
      // The server will never commit this attempt's files.
      optimize::DeleteTaskOutput(*output, *io);
    }
    (status.ok() && accepted ? completed_ : failed_).fetch_add(1);
    std::fprintf(stderr, "floe optimizer: task %lld/%lld attempt %lld: %s in %.2fs%s\n",
                 static_cast<long long>(ids["process-id"].get<int64_t>()),
                 static_cast<long long>(ids["task-id"].get<int64_t>()),
                 static_cast<long long>(ids["attempt"].get<int64_t>()),
                 status.ok() ? "done" : status.ToString().c_str(), seconds,
                 accepted ? "" : " (completion refused: output deleted)");
  }

  // --memory-mb is shared by the threads: each task gets its share, and a quarter of the
  // whole goes to the delete-key cache the threads share.
  optimize::ExecuteOptions LocalOptions() {
    optimize::ExecuteOptions local;
    if (args_.memory_mb > 0) {
      local.memory_budget_bytes = (args_.memory_mb << 20) * 3 / 4 / args_.threads;
    }
    local.spill_dir = args_.spill_dir;
    local.delete_cache = &cache_;
    return local;
  }

  const WorkerArgs args_;
  iceberg::DeleteKeyCache cache_{
      (args_.memory_mb > 0 ? args_.memory_mb << 20 : optimize::kDefaultTaskMemoryBytes) / 4};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::mutex register_mu_;
  std::string id_;         // guarded by mu_
  std::string token_;      // guarded by mu_
  bool stopping_ = false;  // guarded by mu_
  std::atomic<int64_t> completed_{0};
  std::atomic<int64_t> failed_{0};
};

struct GroupArgs {
  Endpoint endpoint;
  std::string name;
  std::string policy = "quota";
  std::vector<std::string> properties;  // k=v
  bool json = false;
};

Status GroupCreate(const GroupArgs& a) {
  Json props = Json::object();
  for (const std::string& kv : a.properties) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("--property wants KEY=VALUE, not '{}'", kv);
    }
    props[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  FLOE_ASSIGN_OR_RETURN(auto client, http::HttpClient::Make());
  Json body = {{"name", a.name}, {"scheduling-policy", a.policy}, {"properties", props}};
  FLOE_ASSIGN_OR_RETURN(Reply r,
                        Send(*client, a.endpoint, "POST", "/optimizer-groups", body.dump()));
  if (r.status != 201) return ReplyError(r, "create group " + a.name);
  if (a.json) return Print(r.body.dump(2) + "\n");
  return Print(fmt::format("created optimizer group {} ({})\n", a.name, a.policy));
}

Status GroupList(const GroupArgs& a) {
  FLOE_ASSIGN_OR_RETURN(auto client, http::HttpClient::Make());
  FLOE_ASSIGN_OR_RETURN(Reply r,
                        Send(*client, a.endpoint, "GET", "/optimizer-groups?page-size=1000", ""));
  if (r.status != 200 || !r.body.is_object()) return ReplyError(r, "list groups");
  if (a.json) return Print(r.body.dump(2) + "\n");
  std::string text = fmt::format("{:<20} {:<9} {:>10} {:>8} {:>7} {:>7} {:>8}\n", "GROUP", "POLICY",
                                 "OPTIMIZERS", "THREADS", "TABLES", "QUEUED", "RUNNING");
  for (const Json& g : r.body["items"]) {
    text +=
        fmt::format("{:<20} {:<9} {:>10} {:>8} {:>7} {:>7} {:>8}\n", g.value("name", std::string()),
                    g.value("scheduling-policy", std::string()), g.value("optimizers", int64_t{0}),
                    g.value("threads", int64_t{0}), g.value("tables", int64_t{0}),
                    g.value("queued-tasks", int64_t{0}), g.value("running-tasks", int64_t{0}));
  }
  return Print(text);
}

Status GroupDrop(const GroupArgs& a) {
  FLOE_ASSIGN_OR_RETURN(auto client, http::HttpClient::Make());
  FLOE_ASSIGN_OR_RETURN(Reply r, Send(*client, a.endpoint, "DELETE",
                                      "/optimizer-groups/" + http::PercentEncode(a.name), ""));
  if (r.status != 204) return ReplyError(r, "drop group " + a.name);
  return Print(fmt::format("dropped optimizer group {}\n", a.name));
}

}  // namespace

void AddOptimizerWorkerCommand(CLI::App& app, int* exit_code) {
  // `floe optimizer` (manage_command.cc) also has `list`; without a subcommand it is a worker.
  CLI::App* optimizer = app.get_subcommand("optimizer");
  optimizer->require_subcommand(0, 1);
  auto a = std::make_shared<WorkerArgs>();
  AddEndpointFlags(optimizer, &a->endpoint);
  optimizer->add_option("--group", a->group, "The optimizer group to work for")
      ->capture_default_str();
  optimizer->add_option("--threads", a->threads, "Tasks run at once")->capture_default_str();
  optimizer->add_option("--memory-mb", a->memory_mb,
                        "Memory this optimizer may use (reported to the server; split over "
                        "the threads)");
  optimizer->add_option("--spill-dir", a->spill_dir,
                        "Where equality-delete spill runs go (default: the temp directory)");
  optimizer->add_option("--heartbeat-ms", a->heartbeat_ms, "Heartbeat interval")
      ->capture_default_str();
  optimizer->callback([optimizer, exit_code, a] {
    if (!optimizer->get_subcommands().empty()) return;
    Status s = Worker(*a).Run();
    if (!s.ok()) std::fprintf(stderr, "floe: %s\n", s.ToString().c_str());
    *exit_code = ExitCodeFor(s);
  });

  auto* group = app.add_subcommand("group", "A running server's optimizer groups");
  group->require_subcommand(1);
  auto create = std::make_shared<GroupArgs>();
  auto* c = group->add_subcommand("create", "Create an optimizer group");
  AddEndpointFlags(c, &create->endpoint);
  c->add_option("name", create->name, "Group name")->required();
  c->add_option("--scheduling-policy", create->policy, "quota or balanced")->capture_default_str();
  c->add_option("--property", create->properties, "KEY=VALUE (repeatable)");
  c->add_flag("--json", create->json, "Print the API's JSON");
  SetCommand(c, exit_code, [create] { return GroupCreate(*create); });
  auto list = std::make_shared<GroupArgs>();
  auto* l = group->add_subcommand("list", "Optimizer groups: policy, optimizers, threads, queue");
  AddEndpointFlags(l, &list->endpoint);
  l->add_flag("--json", list->json, "Print the API's JSON");
  SetCommand(l, exit_code, [list] { return GroupList(*list); });
  auto drop = std::make_shared<GroupArgs>();
  auto* d = group->add_subcommand("drop", "Drop an optimizer group no table or optimizer uses");
  AddEndpointFlags(d, &drop->endpoint);
  d->add_option("name", drop->name, "Group name")->required();
  SetCommand(d, exit_code, [drop] { return GroupDrop(*drop); });
}

}  // namespace floe::exe
