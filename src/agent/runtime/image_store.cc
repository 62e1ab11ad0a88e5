#include "agent/runtime/image_store.h"

#include <fmt/format.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/runtime/command.h"
#include "common/clock_steps.h"
#include "common/file.h"

namespace etna::agent::runtime {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kTag[] = "img";  // the one tag of each per-reference OCI layout
constexpr size_t kMaxRemembered = 10'000;

bool IsLoopbackRegistry(const std::string& registry) {
  std::string host = registry.substr(
      0, registry.rfind(':') == std::string::npos ? registry.size() : registry.rfind(':'));
  return host == "localhost" || host.rfind("127.", 0) == 0 || host == "[::1]";
}

// skopeo's last words: the text of `msg="..."` when it logged one, else its output's last line.
std::string SkopeoMessage(const std::string& output) {
  size_t at = output.rfind("msg=\"");
  if (at != std::string::npos) {
    std::string msg;
    for (size_t i = at + 5; i < output.size() && output[i] != '"'; ++i) {
      if (output[i] == '\\' && i + 1 < output.size()) ++i;
      msg += output[i];
    }
    return msg;
  }
  std::string last, line;
  std::istringstream in(output);
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

Result<json> ReadJson(const std::string& path) {
  ETNA_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return Status::Internal(fmt::format("{}: not JSON", path));
  return j;
}

std::string BlobPath(const std::string& layout, const std::string& digest) {
  size_t colon = digest.find(':');
  if (colon == std::string::npos) return "";
  return fmt::format("{}/blobs/{}/{}", layout, digest.substr(0, colon), digest.substr(colon + 1));
}

json ConfigToJson(const ImageConfig& c) {
  json env = json::array();
  for (const auto& [k, v] : c.env) env.push_back(k + "=" + v);
  return {{"Entrypoint", c.entrypoint},
          {"Cmd", c.cmd},
          {"Env", env},
          {"WorkingDir", c.working_dir},
          {"User", c.user}};
}

}  // namespace

std::string ImageRef::Canonical() const {
  std::string out = registry + "/" + repository;
  if (!tag.empty()) out += ":" + tag;
  if (!digest.empty()) out += "@" + digest;
  return out;
}

Result<ImageRef> ParseImageRef(const std::string& image) {
  if (image.empty()) return Status::InvalidArgument("image: must not be empty");
  for (char c : image) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      return Status::InvalidArgument(fmt::format("image \"{}\": contains white space", image));
    }
  }
  ImageRef ref;
  std::string name = image;
  if (size_t at = name.find('@'); at != std::string::npos) {
    ref.digest = name.substr(at + 1);
    name = name.substr(0, at);
    if (ref.digest.find(':') == std::string::npos) {
      return Status::InvalidArgument(
          fmt::format("image \"{}\": digest \"{}\" is not ALGORITHM:HEX", image, ref.digest));
    }
  }
  size_t slash = name.rfind('/');
  size_t colon = name.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
    ref.tag = name.substr(colon + 1);
    name = name.substr(0, colon);
    if (ref.tag.empty())
      return Status::InvalidArgument(fmt::format("image \"{}\": empty tag", image));
  }
  size_t first = name.find('/');
  std::string head = first == std::string::npos ? "" : name.substr(0, first);
  if (!head.empty() && (head.find('.') != std::string::npos ||
                        head.find(':') != std::string::npos || head == "localhost")) {
    ref.registry = head;
    ref.repository = name.substr(first + 1);
  } else {
    ref.registry = "docker.io";
    ref.repository = name.find('/') == std::string::npos ? "library/" + name : name;
  }
  if (ref.repository.empty()) {
    return Status::InvalidArgument(fmt::format("image \"{}\": no repository", image));
  }
  for (char c : ref.repository) {
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ||
          c == '/')) {
      return Status::InvalidArgument(fmt::format(
          "image \"{}\": repository \"{}\" may hold only lower-case letters, digits and . _ - /",
          image, ref.repository));
    }
  }
  if (ref.tag.empty() && ref.digest.empty()) ref.tag = "latest";
  return ref;
}

std::string DefaultPullPolicy(const ImageRef& ref) {
  return ref.digest.empty() && ref.tag == "latest" ? "Always" : "IfNotPresent";
}

ImageConfig ParseImageConfig(const json& image) {
  ImageConfig c;
  const json& cfg =
      image.contains("config") && image["config"].is_object() ? image["config"] : image;
  auto strings = [&](const char* key) {
    std::vector<std::string> out;
    if (cfg.contains(key) && cfg[key].is_array()) {
      for (const auto& s : cfg[key]) {
        if (s.is_string()) out.push_back(s.get<std::string>());
      }
    }
    return out;
  };
  c.entrypoint = strings("Entrypoint");
  c.cmd = strings("Cmd");
  for (const auto& kv : strings("Env")) {
    size_t eq = kv.find('=');
    if (eq != std::string::npos) c.env.push_back({kv.substr(0, eq), kv.substr(eq + 1)});
  }
  if (cfg.contains("WorkingDir") && cfg["WorkingDir"].is_string()) {
    c.working_dir = cfg["WorkingDir"].get<std::string>();
  }
  if (cfg.contains("User") && cfg["User"].is_string()) c.user = cfg["User"].get<std::string>();
  return c;
}

ImageStore::ImageStore(ImageStoreOptions options) : options_(std::move(options)) {
  std::error_code ec;
  fs::create_directories(options_.dir + "/layouts", ec);
  fs::create_directories(options_.dir + "/rootfs", ec);
  fs::create_directories(options_.dir + "/tmp", ec);
  Load();
  worker_ = std::thread([this] { Run(); });
}

ImageStore::~ImageStore() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

std::string ImageStore::LayoutDir(const std::string& canonical) const {
  std::string name = canonical;
  for (char& c : name) {
    if (c == '/' || c == ':' || c == '@') c = '_';
  }
  return options_.dir + "/layouts/" + name;
}

std::string ImageStore::RootfsDir(const std::string& digest) const {
  std::string hex = digest.substr(digest.find(':') + 1);
  return options_.dir + "/rootfs/" + hex;
}

void ImageStore::Load() {
  auto index = ReadJson(options_.dir + "/images.json");
  if (!index.ok() || !index->is_object()) return;
  for (const auto& [canonical, e] : index->items()) {
    Entry entry;
    entry.digest = e.value("digest", "");
    entry.image_id = e.value("imageID", "");
    entry.config = ParseImageConfig(e.value("config", json::object()));
    entry.pulled_ms = e.value("pulledMs", 0LL);
    entry.last_used_ms = e.value("lastUsedMs", 0LL);
    std::error_code ec;
    if (!entry.digest.empty() && fs::is_directory(RootfsDir(entry.digest) + "/rootfs", ec)) {
      images_[canonical] = std::move(entry);
    }
  }
}

void ImageStore::Save() const {
  json index = json::object();
  for (const auto& [canonical, e] : images_) {
    if (e.digest.empty()) continue;
    index[canonical] = {{"digest", e.digest},
                        {"imageID", e.image_id},
                        {"config", ConfigToJson(e.config)},
                        {"pulledMs", e.pulled_ms},
                        {"lastUsedMs", e.last_used_ms}};
  }
  (void)WriteFileAtomically(options_.dir + "/images.json", index.dump(1) + "\n", 0644);
}

ImageState ImageStore::Ensure(const std::string& image, const std::string& policy_in,
                              const PullCredentials& credentials, const std::string& requester,
                              std::vector<BackendEvent>* events) {
  ImageState state;
  auto ref = ParseImageRef(image);
  if (!ref.ok()) {
    state.kind = ImageState::Kind::kFailed;
    state.reason = "InvalidImageName";
    state.message = ref.status().message();
    return state;
  }
  std::string canonical = ref->Canonical();
  std::string policy = policy_in.empty() ? DefaultPullPolicy(*ref) : policy_in;
  TimeMs now = options_.clock->NowMs();
  std::lock_guard<std::mutex> lock(mu_);
  Entry& e = images_[canonical];
  bool present = !e.digest.empty();
  auto ready = [&] {
    if (e.waiting.erase(requester)) {
      events->push_back({"Normal", "Pulled",
                         fmt::format("Successfully pulled image \"{}\" ({})", image, e.digest)});
    } else {
      events->push_back({"Normal", "Pulled",
                         fmt::format("Container image \"{}\" already present on machine", image)});
    }
    e.last_used_ms = now;
    state.kind = ImageState::Kind::kReady;
    state.rootfs = RootfsDir(e.digest) + "/rootfs";
    state.digest = e.digest;
    state.image_id = e.image_id;
    state.config = e.config;
    return state;
  };
  if (policy == "Never") {
    if (present) return ready();
    state.kind = ImageState::Kind::kFailed;
    state.reason = "ErrImageNeverPull";
    state.message =
        fmt::format("Container image \"{}\" is not present with pull policy of Never", image);
    return state;
  }
  if (policy != "Always" && policy != "IfNotPresent") {
    state.kind = ImageState::Kind::kFailed;
    state.reason = "InvalidImagePullPolicy";
    state.message =
        fmt::format("imagePullPolicy: \"{}\" is not Always, IfNotPresent or Never", policy);
    return state;
  }
  bool pulled_for_this_run = e.pulled_for.count(requester) > 0;
  if (present && (policy == "IfNotPresent" || pulled_for_this_run)) return ready();
  if (queued_.count(canonical)) {
    e.waiting.insert(requester);
    state.kind = ImageState::Kind::kPulling;
    return state;
  }
  auto failed = e.failures.find(credentials.key);
  if (failed != e.failures.end() &&
      !AgedOut(now, failed->second.failed_ms, failed->second.backoff_ms)) {
    Entry::Failure& f = failed->second;
    state.kind = ImageState::Kind::kFailed;
    if (!f.told.count(requester)) {
      f.told.insert(requester);
      state.reason = "ErrImagePull";
      state.message = f.message;
      events->push_back(
          {"Warning", "Failed", fmt::format("Failed to pull image \"{}\": {}", image, f.message)});
      events->push_back({"Warning", "Failed", "Error: ErrImagePull"});
      events->push_back({"Normal", "BackOff", fmt::format("Back-off pulling image \"{}\"", image)});
      return state;
    }
    state.reason = "ImagePullBackOff";
    state.message =
        fmt::format("Back-off pulling image \"{}\": ErrImagePull: {}", image, f.message);
    return state;
  }
  if (e.pulled_for.size() > kMaxRemembered) e.pulled_for.clear();
  e.waiting.insert(requester);
  queue_.push_back({canonical, credentials});
  queued_.insert(canonical);
  cv_.notify_all();
  events->push_back({"Normal", "Pulling", fmt::format("Pulling image \"{}\"", image)});
  state.kind = ImageState::Kind::kPulling;
  return state;
}

void ImageStore::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    PullAuth auth = job.credentials.read ? job.credentials.read() : PullAuth{};
    Entry pulled;
    Status st = Pull(job.canonical, auth.auth_json, &pulled);
    TimeMs now = options_.clock->NowMs();
    lock.lock();
    Entry& e = images_[job.canonical];
    if (st.ok()) {
      e.digest = pulled.digest;
      e.image_id = pulled.image_id;
      e.config = std::move(pulled.config);
      e.pulled_ms = e.last_used_ms = now;
      e.failures.clear();
      // Every run that waited for this pull has had its pull (policy Always); each hears
      // "Pulled" when it next asks.
      e.pulled_for.insert(e.waiting.begin(), e.waiting.end());
      Save();
    } else {
      Entry::Failure& f = e.failures[job.credentials.key];
      f.message = st.message();
      if (!auth.problem.empty()) f.message += " (" + auth.problem + ")";
      ++f.count;
      TimeMs backoff = options_.backoff_initial_ms;
      for (int i = 1; i < f.count && backoff < options_.backoff_max_ms; ++i) backoff *= 2;
      f.failed_ms = now;
      f.backoff_ms = std::min(backoff, options_.backoff_max_ms);
      f.told.clear();
      e.waiting.clear();  // they hear of the failure (ErrImagePull) when they next ask
    }
    queued_.erase(job.canonical);
    busy_ = false;
    cv_.notify_all();
  }
}

Status ImageStore::Pull(const std::string& canonical, const std::string& auth_json, Entry* out) {
  auto ref = ParseImageRef(canonical);
  if (!ref.ok()) return ref.status();
  std::string layout = LayoutDir(canonical);
  std::vector<std::string> argv = {options_.skopeo, "copy", "--quiet"};
  if (IsLoopbackRegistry(ref->registry) || options_.insecure_registries.count(ref->registry)) {
    argv.push_back("--src-tls-verify=false");
  }
  std::string auth_file;
  if (!auth_json.empty()) {  // one pull at a time: one auth file
    auth_file = options_.dir + "/tmp/auth.json";
    ETNA_RETURN_IF_ERROR(WriteFileAtomically(auth_file, auth_json, 0600));
    argv.push_back("--authfile");
    argv.push_back(auth_file);
  }
  argv.push_back("docker://" + canonical);
  argv.push_back(fmt::format("oci:{}:{}", layout, kTag));
  CommandOptions co;
  co.timeout = options_.pull_timeout;
  auto copied = RunCommand(argv, co);
  if (!auth_file.empty()) fs::remove(auth_file);
  if (!copied.ok()) return copied.status();
  if (copied->exit_code != 0) {
    std::string msg = SkopeoMessage(copied->output);
    if (copied->timed_out)
      msg = fmt::format("pull timed out after {} s", co.timeout.count() / 1000);
    return Status::Unavailable(msg.empty() ? fmt::format("skopeo exited {}", copied->exit_code)
                                           : msg);
  }
  ETNA_ASSIGN_OR_RETURN(json index, ReadJson(layout + "/index.json"));
  for (const auto& m : index.value("manifests", json::array())) {
    if (m.value("/annotations/org.opencontainers.image.ref.name"_json_pointer, std::string()) ==
        kTag) {
      out->digest = m.value("digest", "");
    }
  }
  if (out->digest.empty()) return Status::Internal(layout + ": the pulled image has no manifest");
  ETNA_ASSIGN_OR_RETURN(json manifest, ReadJson(BlobPath(layout, out->digest)));
  std::string config_digest = manifest.value("/config/digest"_json_pointer, std::string());
  ETNA_ASSIGN_OR_RETURN(json config, ReadJson(BlobPath(layout, config_digest)));
  out->config = ParseImageConfig(config);
  out->image_id = fmt::format("{}/{}@{}", ref->registry, ref->repository, out->digest);
  std::string rootfs = RootfsDir(out->digest);
  std::error_code ec;
  if (!fs::is_directory(rootfs + "/rootfs", ec)) {
    std::string tmp = rootfs + ".unpacking";
    fs::remove_all(tmp, ec);
    auto unpacked = RunCommand(
        {options_.umoci, "unpack", "--image", fmt::format("{}:{}", layout, kTag), tmp}, co);
    if (!unpacked.ok()) return unpacked.status();
    if (unpacked->exit_code != 0) {
      fs::remove_all(tmp, ec);
      return Status::Internal(fmt::format("umoci unpack: {}", SkopeoMessage(unpacked->output)));
    }
    fs::rename(tmp, rootfs, ec);
    if (ec) return Status::Internal(fmt::format("{}: {}", rootfs, ec.message()));
  }
  return Status::Ok();
}

std::vector<std::string> ImageStore::CollectGarbage(const std::set<std::string>& in_use) {
  auto used_percent = [this] {
    struct statvfs s {};
    if (statvfs(options_.dir.c_str(), &s) != 0 || s.f_blocks == 0) return 0.0;
    return 100.0 * static_cast<double>(s.f_blocks - s.f_bavail) / static_cast<double>(s.f_blocks);
  };
  std::vector<std::string> removed;
  if (used_percent() <= options_.gc_high_percent) return removed;
  TimeMs now = options_.clock->NowMs();
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<TimeMs, std::string>> candidates;
  for (const auto& [canonical, e] : images_) {
    if (e.digest.empty() || in_use.count(e.digest) || queued_.count(canonical)) continue;
    if (now - e.last_used_ms < options_.gc_min_age_ms) continue;
    candidates.push_back({e.last_used_ms, canonical});
  }
  std::sort(candidates.begin(), candidates.end());
  for (const auto& [used, canonical] : candidates) {
    if (used_percent() < options_.gc_low_percent) break;
    std::string digest = images_[canonical].digest;
    images_.erase(canonical);
    std::error_code ec;
    fs::remove_all(LayoutDir(canonical), ec);
    bool shared = false;
    for (const auto& [other, e] : images_) shared = shared || e.digest == digest;
    if (!shared) fs::remove_all(RootfsDir(digest), ec);
    removed.push_back(canonical);
  }
  if (!removed.empty()) Save();
  return removed;
}

void ImageStore::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

}  // namespace etna::agent::runtime
