// The node's images: pulled from their registries by skopeo into one OCI layout per image
// reference (<dir>/layouts/), unpacked once per manifest by umoci into a read-only root
// filesystem (<dir>/rootfs/<digest>/rootfs) that containers use as their overlay's lower
// layer, recorded in <dir>/images.json so a restarted agent knows what it has. Pulls run one
// at a time on the store's own thread (the kubelet's serialized pulls), so the agent's loop
// never waits on a registry. Pull policies as Kubernetes defines them; a failed pull backs off
// (doubling from `backoff_initial_ms` to `backoff_max_ms`) and is reported as ErrImagePull,
// then ImagePullBackOff, with the registry's message. Garbage collection follows the
// kubelet's thresholds on the filesystem of <dir>.
// Thread-safety: every public method from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "agent/runtime/backend.h"
#include "common/clock.h"
#include "common/status.h"

namespace etna::agent::runtime {

// An image reference as Docker normalizes it: "busybox" is docker.io/library/busybox:latest.
struct ImageRef {
  std::string registry;    // docker.io, 127.0.0.1:5000, ghcr.io, ...
  std::string repository;  // library/busybox
  std::string tag;         // empty when only a digest is given
  std::string digest;      // sha256:..., or empty
  // registry/repository[:tag][@digest]: what skopeo is given and what the store is keyed by.
  std::string Canonical() const;
};
// InvalidArgument naming what is wrong ("image: \"\" is empty", "image \"A b\": ...").
Result<ImageRef> ParseImageRef(const std::string& image);

// Kubernetes' default imagePullPolicy: Always for :latest or no tag (and no digest), else
// IfNotPresent.
std::string DefaultPullPolicy(const ImageRef& ref);

// The parts of an image's configuration a container starts from.
struct ImageConfig {
  std::vector<std::string> entrypoint;
  std::vector<std::string> cmd;
  std::vector<std::pair<std::string, std::string>> env;
  std::string working_dir;
  std::string user;
};
ImageConfig ParseImageConfig(const nlohmann::json& oci_image_config);

// What a container can do with its image now.
struct ImageState {
  enum class Kind { kReady, kPulling, kFailed };
  Kind kind = Kind::kPulling;
  std::string rootfs;    // kReady: the unpacked root filesystem (read-only)
  std::string digest;    // kReady: the manifest digest ("sha256:...")
  std::string image_id;  // kReady: registry/repository@digest
  ImageConfig config;    // kReady
  std::string reason;    // kFailed: ErrImagePull, ImagePullBackOff, ErrImageNeverPull, ...
  std::string message;   // kFailed: with the registry's own words
};

struct ImageStoreOptions {
  std::string dir;               // required
  const Clock* clock = nullptr;  // required
  // Registries reached over plain HTTP or with unverified TLS, besides loopback ones (which,
  // as for Docker, always are).
  std::set<std::string> insecure_registries;
  std::string skopeo = "skopeo";
  std::string umoci = "umoci";
  TimeMs backoff_initial_ms = 10'000;
  TimeMs backoff_max_ms = 300'000;
  std::chrono::milliseconds pull_timeout{30 * 60 * 1000};
  // The kubelet's image garbage collection: above `gc_high_percent` of the filesystem in use,
  // unused images older than `gc_min_age_ms` go, least recently used first, until below
  // `gc_low_percent`.
  int gc_high_percent = 85;
  int gc_low_percent = 80;
  TimeMs gc_min_age_ms = 2 * 60 * 1000;
};

// What a pull authenticates with: a Docker config ({"auths": {...}}, "" for none), and why
// some of the credentials asked for could not be read ("" when all were).
struct PullAuth {
  std::string auth_json;
  std::string problem;
};

// The credentials of a pull: `key` names them (the pod's pull secrets; "" for none) and keys
// the backoff after a failure; `read` fetches them, on the store's thread, only when a pull
// is made (null: none).
struct PullCredentials {
  std::string key;
  std::function<PullAuth()> read;
};

class ImageStore {
 public:
  explicit ImageStore(ImageStoreOptions options);
  ~ImageStore();
  ImageStore(const ImageStore&) = delete;
  ImageStore& operator=(const ImageStore&) = delete;

  // The image for one run (`requester` names it: each run under policy Always pulls once);
  // `events` receives the pod's Events (Pulling, Pulled, Failed, BackOff).
  ImageState Ensure(const std::string& image, const std::string& policy,
                    const PullCredentials& credentials, const std::string& requester,
                    std::vector<BackendEvent>* events);

  // Removes unused images per the thresholds (`in_use`: manifest digests of existing runs).
  // Returns the references removed.
  std::vector<std::string> CollectGarbage(const std::set<std::string>& in_use);

  // Blocks until no pull is queued or running (tests).
  void WaitIdle();

 private:
  struct Entry {
    std::string digest, image_id;
    ImageConfig config;
    TimeMs pulled_ms = 0, last_used_ms = 0;
    // The last failure with each set of credentials (a new pull secret is a new try): its
    // message, when to try again, how many in a row, who has seen ErrImagePull for it.
    struct Failure {
      std::string message;
      TimeMs failed_ms = 0, backoff_ms = 0;  // tried again once AgedOut (common/clock_steps.h)
      int count = 0;
      std::set<std::string> told;
    };
    std::map<std::string, Failure> failures;  // by PullCredentials::key
    std::set<std::string> pulled_for;         // requesters whose Always pull is done
    std::set<std::string> waiting;            // requesters waiting for the pull in flight
  };
  struct Job {
    std::string canonical;
    PullCredentials credentials;
  };

  void Run();
  Status Pull(const std::string& canonical, const std::string& auth_json, Entry* result);
  void Load();
  void Save() const;  // holds mu_
  std::string LayoutDir(const std::string& canonical) const;
  std::string RootfsDir(const std::string& digest) const;

  ImageStoreOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Entry> images_;  // by canonical reference
  std::deque<Job> queue_;
  std::set<std::string> queued_;  // canonical references queued or being pulled
  bool busy_ = false;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace etna::agent::runtime
