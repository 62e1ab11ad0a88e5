# The two commands: `make demo` and `make test`. Each installs what is missing first.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)

.PHONY: deps build demo test test-core-asan fuzz fuzz-smoke soak bench bench-api bench-e2e bench-autoscale bench-runtime bench-hostile bench-ui bench-openb bench-sim bench-slurm format clean

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# etna dev (server, scheduler, controllers, simulated GPU nodes) with the seed's queues and its
# training job made runnable; shows the job's progress, then keeps running until Ctrl-C.
demo: build
	@scripts/demo.sh $(BUILD)

test: build test-core-asan fuzz-smoke
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The pure core again under AddressSanitizer and UndefinedBehaviorSanitizer.
test-core-asan: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DETNA_SANITIZE=ON -DETNA_CORE_ONLY=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS)

# libFuzzer targets (src/fuzz/, clang, ASan, UBSan): the API's decoders, selectors and patches,
# kubeconfig, cluster profile and scheduler configuration. `make fuzz` runs every one for
# FUZZ_SECONDS each (600, so about 1.5 h in all; `make fuzz FUZZ_SECONDS=60`, ARGS="kubeconfig
# patch" for some). `make fuzz-smoke`, part of `make test`, runs 5 s each of all but
# scheduler_conf, which compiles the whole scheduling core (about 10 min on one core).
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_TARGETS ?= json_decode yaml_decode label_selector field_selector patch protobuf_decode \
	kubeconfig cluster_profile
fuzz: deps
	@scripts/fuzz.sh $(FUZZ_SECONDS) $(ARGS)

fuzz-smoke: deps
	@scripts/fuzz.sh 5 $(FUZZ_SMOKE_TARGETS)

# Not in `make test`: 30 minutes of churn on the whole cluster as separate processes (server,
# scheduler, controllers, 4 agents): jobs of every shape submitted and deleted, preemption, the
# scheduler, agents and controllers SIGKILLed at random, an invariant checker on every write;
# prints the SOAK line, exits 1 on a violation. ARGS: e.g. ARGS="--minutes 5 --seed 7".
soak: build
	/usr/bin/python3 tests/soak/soak.py --etna $(BUILD)/src/cli/etna $(ARGS)

bench: build
	@scripts/run-bench.sh $(BUILD)

# Loads `etna server` from 64 C++ clients on loopback and prints the BENCH api line; with
# ARGS="--store etcd", on a three-member etcd cluster, beside `etcdctl check perf`.
bench-api: build
	$(BUILD)/bench/api_bench --etna $(BUILD)/src/cli/etna $(ARGS)

# etna server (TLS, SQLite), etna scheduler and etna controllers as processes; 1,000 simulated
# nodes of 8 GPUs; 10,000 Volcano Jobs over HTTPS (the workload scripts/bench-slurm.sh gives
# Slurm); prints the BENCH e2e line. ARGS="--scale 10000" for 10,000 nodes, 100,000 jobs;
# ARGS="--dev --nodes 64 --jobs 512 --one-gpu-jobs" for `etna dev` (BENCH e2e-dev).
bench-e2e: build
	$(BUILD)/bench/e2e_bench --etna $(BUILD)/src/cli/etna $(ARGS)

# One node's agent (etna server, scheduler, controllers, agent as processes) starting 200 pods
# already bound to it, from a cached image built here and served by a local docker-registry;
# prints BENCH runtime ... for the container runtime (runc). ARGS="--runtime process" for the
# process runtime.
bench-runtime: build
	/usr/bin/python3 bench/runtime_bench.py $(BUILD)/src/cli/etna $(ARGS)

# One `etna server` attacked in turn (slowloris, header and body floods, 10,000 idle watches, a
# watch that never reads) while a well-behaved client measures its p99; prints BENCH hostile
# lines with the server's peak RSS. ARGS: e.g. ARGS='--seconds 10 --watches 2000'.
bench-hostile: build
	/usr/bin/python3 bench/hostile_bench.py $(BUILD)/src/cli/etna $(ARGS)

# The dashboard's GPU map in headless Chromium at 1,000 nodes x 8 GPUs (docs/dashboard.md).
bench-ui: build
	/usr/bin/python3 bench/ui_bench.py $(BUILD)/src/cli/etna $(ARGS)

# Replays the openb trace with every policy (seeds 42-51) and compares with the FGD paper.
# `etna dev` in process with 200 Deployments of 1-20 GPU replicas, each with an HPA on its
# simulated GPU utilization; prints BENCH autoscale ... (a few minutes). ARGS: e.g. '--nodes 60'.
bench-autoscale: build
	$(BUILD)/bench/autoscale_bench $(ARGS)

bench-openb: build
	@scripts/bench-openb.sh $(BUILD)

# The time-aware replay (`etna sim replay`) of openb's default trace with its timestamps: 8,152
# jobs over 149 virtual days on 1,213 nodes; prints BENCH sim ... (seconds).
bench-sim: build
	$(BUILD)/bench/sim_bench $(ARGS)

# Optional: Slurm (Debian's slurmctld, installed if missing) on the same workload as bench-e2e,
# 1,000 CLOUD nodes of 8 GPUs and 10,000 jobs from bench_workload; prints a BENCH e2e system=slurm
# line (a few minutes). Only bench_workload is built. ARGS: e.g. ARGS='--scale 10000'.
bench-slurm: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) --target bench_workload
	@scripts/bench-slurm.sh $(BUILD) $(ARGS)

format:
	find src bench -name '*.h' -o -name '*.cc' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
