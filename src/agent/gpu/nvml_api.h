// The few NVML types and entry points etna uses, declared here (no NVML headers needed): the
// agent resolves them with dlsym from libnvidia-ml.so.1, and the fake NVML library
// (fake_nvml.cc) defines them. Layouts follow NVML's public ABI.
#pragma once

#include <cstdint>

extern "C" {

typedef int nvmlReturn_t;  // NVML_SUCCESS = 0
typedef struct nvmlDevice_st* nvmlDevice_t;
typedef struct nvmlEventSet_st* nvmlEventSet_t;

typedef struct {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_t;

typedef struct {
  unsigned int gpu;
  unsigned int memory;
} nvmlUtilization_t;

typedef struct {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

// nvmlDeviceGetFieldValues: one requested field (fieldId, scopeId in) and its sample (out).
typedef union {
  double dVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  long long sllVal;
  int siVal;
  unsigned short usVal;
} nvmlValue_t;

typedef struct {
  unsigned int fieldId;
  unsigned int scopeId;  // NVLink counters: the link, or UINT_MAX for the sum over all links
  long long timestamp;
  long long latencyUsec;
  int valueType;            // nvmlValueType_t: which member of `value` is set
  nvmlReturn_t nvmlReturn;  // this field's own result; `value` is undefined unless SUCCESS
  nvmlValue_t value;
} nvmlFieldValue_t;

typedef struct {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlEventData_t;

}  // extern "C"

namespace etna::agent::nvml {

inline constexpr nvmlReturn_t kSuccess = 0;
inline constexpr nvmlReturn_t kErrorNotSupported = 3;
inline constexpr nvmlReturn_t kErrorNotFound = 6;
inline constexpr nvmlReturn_t kErrorTimeout = 10;
inline constexpr nvmlReturn_t kErrorGpuIsLost = 15;  // NVML_ERROR_GPU_IS_LOST
inline constexpr unsigned long long kEventTypeXidCriticalError = 0x8;
inline constexpr unsigned int kTemperatureGpu = 0;
inline constexpr unsigned int kNvLinkMaxLinks = 18;
inline constexpr unsigned int kMigEnabled = 1;
inline constexpr unsigned int kClockSm = 1;   // nvmlClockType_t NVML_CLOCK_SM
inline constexpr unsigned int kClockMem = 2;  // NVML_CLOCK_MEM
// Field ids (NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX/RX): data bytes over NVLink, in KiB.
inline constexpr unsigned int kFieldNvLinkDataTxKiB = 138;
inline constexpr unsigned int kFieldNvLinkDataRxKiB = 139;
inline constexpr unsigned int kScopeAllLinks = 0xFFFFFFFFu;
// nvmlValueType_t
inline constexpr int kValueDouble = 0;
inline constexpr int kValueUnsignedInt = 1;
inline constexpr int kValueUnsignedLong = 2;
inline constexpr int kValueUnsignedLongLong = 3;
inline constexpr int kValueSignedLongLong = 4;
inline constexpr int kValueSignedInt = 5;
static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t must keep NVML's 64-bit layout");

using InitFn = nvmlReturn_t (*)();
using ShutdownFn = nvmlReturn_t (*)();
using ErrorStringFn = const char* (*)(nvmlReturn_t);
using GetCountFn = nvmlReturn_t (*)(unsigned int*);
using GetHandleByIndexFn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t*);
using GetStringFn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int);
using GetMemoryInfoFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*);
using GetUtilizationFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlUtilization_t*);
using GetTemperatureFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, unsigned int*);
using GetUintFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
using GetMigModeFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, unsigned int*);
using GetMigDeviceByIndexFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlDevice_t*);
using GetClockInfoFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, unsigned int*);
using GetEnergyFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*);
using GetFieldValuesFn = nvmlReturn_t (*)(nvmlDevice_t, int, nvmlFieldValue_t*);
using GetPciInfoFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlPciInfo_t*);
using GetNvLinkStateFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, unsigned int*);
using GetNvLinkRemotePciFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlPciInfo_t*);
using EventSetCreateFn = nvmlReturn_t (*)(nvmlEventSet_t*);
using RegisterEventsFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
using EventSetWaitFn = nvmlReturn_t (*)(nvmlEventSet_t, nvmlEventData_t*, unsigned int);
using EventSetFreeFn = nvmlReturn_t (*)(nvmlEventSet_t);

}  // namespace etna::agent::nvml
