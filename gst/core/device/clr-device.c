/* clresample: shared OpenCL devices. See clr-device.h. */
/* for pthread_{get,set}attr_default_np () */
#define _GNU_SOURCE
/* for clSetKernelArgSVMPointer, called only with the pointers of devices
 * that have OpenCL 2.0 and fine-grained SVM (clr-budget.c) */
#define CL_TARGET_OPENCL_VERSION 200
/* ... and still clCreateCommandQueue (), which 1.2 devices have too */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include "clr-device.h"
#include "clr-device-inventory.h"
#include "clr-log.h"
#include "clr-disk-cache.h"
#include "clr-tuning.h"

#define CLR_INSTALL_HINT \
  "Install an OpenCL driver: on Debian or Ubuntu 'apt-get install " \
  "pocl-opencl-icd' runs on the CPU; GPU vendors ship their own ICD. " \
  "'clinfo -l' lists what the ICD loader finds."

typedef struct {
  char *options;
  const char *source;
  cl_program program;
} ClrProgramEntry;

struct _ClrDevice {
  gint refcount;                /* protected by registry_lock */
  gboolean cached;              /* the registry holds a reference */
  guint platform_index, device_index;
  /* FALSE for a device described from the listing an earlier process
   * kept (clr_device_acquire_host ()): its platform, id, context and
   * queue are made at the first call that asks for one of them
   * (device_ensure_open ()), under open_lock; read atomically */
  gint opened;
  GMutex open_lock;
  cl_platform_id platform;
  cl_device_id id;
  cl_context context;
  cl_command_queue queue;
  char *name;
  char where[24];               /* "P:D", as clr_device_describe_all () */
  gboolean fp64;
  gboolean gpu;
  gboolean lost;                /* clr_device_set_lost (); registry_lock */
  cl_ulong max_alloc;
  /* what the convolution's choices read (clr-conv.c): the same whether
   * described or opened, so that a stream's blocks are */
  cl_ulong local_mem;
  cl_uint compute_units;
  size_t max_items_z;
  GMutex lock;                  /* protects programs */
  GPtrArray *programs;
};

typedef struct {
  cl_platform_id platform;
  cl_device_id device;
  guint platform_index, device_index;
  cl_device_type type;
  gboolean fp64;                /* cl_khr_fp64 */
  cl_ulong max_alloc;
  cl_ulong local_mem;
  cl_uint compute_units;
  size_t max_items_z;
  char name[256];
} ClrDeviceCandidate;

static GMutex registry_lock;
static GList *registry;         /* of ClrDevice*, protected by registry_lock */

G_DEFINE_QUARK (clr-error-quark, clr_error);

const char *
clr_cl_status_name (cl_int status)
{
  switch (status) {
    case CL_SUCCESS:
      return "CL_SUCCESS";
    case CL_DEVICE_NOT_FOUND:
      return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE:
      return "CL_DEVICE_NOT_AVAILABLE";
    case CL_OUT_OF_RESOURCES:
      return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY:
      return "CL_OUT_OF_HOST_MEMORY";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
      return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_BUILD_PROGRAM_FAILURE:
      return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE:
      return "CL_INVALID_VALUE";
    case CL_INVALID_BUFFER_SIZE:
      return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_KERNEL_ARGS:
      return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_WORK_GROUP_SIZE:
      return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE:
      return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_INVALID_COMMAND_QUEUE:
      return "CL_INVALID_COMMAND_QUEUE";
    case CL_INVALID_CONTEXT:
      return "CL_INVALID_CONTEXT";
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "OpenCL error";
  }
}

void
clr_set_cl_error (GError ** error, cl_int status, const char *what)
{
  int code = CLR_ERROR_FAILED;

  if (status == CL_OUT_OF_RESOURCES || status == CL_OUT_OF_HOST_MEMORY
      || status == CL_MEM_OBJECT_ALLOCATION_FAILURE
      || status == CL_INVALID_BUFFER_SIZE)
    code = CLR_ERROR_RESOURCES;
  g_set_error (error, CLR_ERROR, code, "%s failed: %s (%d)", what,
      clr_cl_status_name (status), status);
}

/* The stack of the threads OpenCL drivers start while they are first
 * enumerated. PoCL's CPU device runs work-groups on worker threads it
 * starts then, with the process's default stack (8 MiB under the usual
 * `ulimit -s`), and a work-group function keeps every work-item's context
 * on it: VkFFT's one-kernel transforms of 65536 and 131072 complex points
 * took between 16 and 32 MiB on an AVX-512 CPU (PoCL 3.1) and crashed
 * with SIGSEGV (test-conv-offline, 65536 taps). The default is raised
 * for the enumeration only, so that no other thread of the process gets
 * it, and it costs address space, not memory: pages are touched only as
 * used. A driver that the process started before keeps its stacks. */
#define CLR_DRIVER_STACK (64u << 20)

/* Raises the process's default thread stack to CLR_DRIVER_STACK, keeping
 * the default in *saved: TRUE where it did (glibc, default smaller). */
static gboolean
driver_stack_raise (pthread_attr_t * saved)
{
#ifdef __GLIBC__
  pthread_attr_t big;
  size_t now = 0;
  gboolean raised = FALSE;

  if (pthread_getattr_default_np (saved) != 0)
    return FALSE;
  if (pthread_attr_getstacksize (saved, &now) == 0 && now < CLR_DRIVER_STACK
      && pthread_getattr_default_np (&big) == 0) {
    raised = pthread_attr_setstacksize (&big, CLR_DRIVER_STACK) == 0
        && pthread_setattr_default_np (&big) == 0;
    pthread_attr_destroy (&big);
  }
  if (!raised)
    pthread_attr_destroy (saved);
  return raised;
#else
  return FALSE;
#endif
}

static void
driver_stack_restore (pthread_attr_t * saved, gboolean raised)
{
#ifdef __GLIBC__
  if (!raised)
    return;
  pthread_setattr_default_np (saved);
  pthread_attr_destroy (saved);
#endif
}

/* Test hooks, read once: CLRESAMPLE_TEST_AS_GPU="P:D" lists that device
 * as a GPU, and CLRESAMPLE_TEST_OPEN_DELAY_MS delays the opening of every
 * GPU by as much: with PoCL's two CPU drivers (POCL_DEVICES="pthread
 * pthread"), a machine whose GPU driver opens slowly, as NVIDIA's does
 * (0.24-0.31 s), for tests that have no GPU. The listing such a process
 * makes is not kept for others (inventory_keep ()). */
static const char *
test_as_gpu (void)
{
  static const char *where;
  static gsize once;

  if (g_once_init_enter (&once)) {
    where = g_getenv ("CLRESAMPLE_TEST_AS_GPU");
    g_once_init_leave (&once, 1);
  }
  return where && *where ? where : NULL;
}

static GArray *list_devices (gboolean * whole, GError ** error);
static gboolean device_has_extension (cl_device_id id, const char *ext);
static void inventory_keep (GArray * cands);

static gboolean
max_items_z (cl_device_id id, size_t * z)
{
  size_t sizes[3] = { 0, 0, 0 };
  cl_uint dims = 0;

  /* a device of fewer dimensions has a third of one work-item */
  *z = 1;
  if (clGetDeviceInfo (id, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof dims,
          &dims, NULL) != CL_SUCCESS)
    return FALSE;
  if (dims < 3)
    return TRUE;
  if (clGetDeviceInfo (id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof sizes,
          sizes, NULL) != CL_SUCCESS)
    return FALSE;
  *z = sizes[2];
  return TRUE;
}

/* The process's listing of the devices (list_candidates ()), under
 * list_lock; known_whole: nothing was left out of it (list_devices ()) */
static GMutex list_lock;
static GArray *known;
static gboolean known_whole;

/* Every device of every platform, in ICD order (with the drivers'
 * threads given CLR_DRIVER_STACK), listed once for the process: platforms
 * and devices do not come and go while it runs (a device that stops
 * answering is marked apart: clr_device_set_lost ()), and a fresh listing
 * at every acquire let one failed clGetPlatformIDs or clGetDeviceIDs (a
 * driver's transient failure, an injected fault) fail an element started
 * later on a device that was open and answering, as the soak found. A
 * listing that left a platform's devices out is not kept as the answer:
 * the next acquire lists again, and where that fails, the one there is
 * serves. Only a process that has never listed fails on a failed listing,
 * with the error it had. */
static GArray *
list_candidates (GError ** error)
{
  pthread_attr_t saved;
  gboolean raised, whole = FALSE;
  GArray *out;

  g_mutex_lock (&list_lock);
  if (known && known_whole) {
    out = g_array_ref (known);
    goto done;
  }
  raised = driver_stack_raise (&saved);
  out = list_devices (&whole, known ? NULL : error);
  driver_stack_restore (&saved, raised);
  if (out && whole)
    inventory_keep (out);
  if (out) {
    if (known)
      g_array_unref (known);
    known = g_array_ref (out);
    known_whole = whole;
  } else if (known) {
    clr_log (CLR_LOG_INFO, "listing the OpenCL devices again failed; the "
        "devices listed before serve");
    out = g_array_ref (known);
  }
done:
  g_mutex_unlock (&list_lock);
  return out;
}

/* whole: FALSE where something could not be listed: a platform's devices
 * (not in the answer), a device's type or name (empty) */
static GArray *
list_devices (gboolean * whole, GError ** error)
{
  cl_uint n_platforms = 0, p;
  cl_platform_id *platforms = NULL;
  GArray *out = NULL;
  cl_int status;

  status = clGetPlatformIDs (0, NULL, &n_platforms);
  if (status == -1001 || (status == CL_SUCCESS && n_platforms == 0))
    goto no_platform;
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "clGetPlatformIDs");
    return NULL;
  }
  platforms = g_new0 (cl_platform_id, n_platforms);
  status = clGetPlatformIDs (n_platforms, platforms, NULL);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "clGetPlatformIDs");
    g_free (platforms);
    return NULL;
  }

  out = g_array_new (FALSE, TRUE, sizeof (ClrDeviceCandidate));
  *whole = TRUE;
  for (p = 0; p < n_platforms; p++) {
    cl_uint n_devices = 0, d;
    cl_device_id *devices;

    status = clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL,
        &n_devices);
    if (status != CL_SUCCESS && status != CL_DEVICE_NOT_FOUND)
      *whole = FALSE;
    if (status != CL_SUCCESS || n_devices == 0)
      continue;
    devices = g_new0 (cl_device_id, n_devices);
    status = clGetDeviceIDs (platforms[p], CL_DEVICE_TYPE_ALL, n_devices,
        devices, NULL);
    if (status != CL_SUCCESS) {
      *whole = FALSE;
    } else {
      for (d = 0; d < n_devices; d++) {
        ClrDeviceCandidate c = { 0, };

        c.platform = platforms[p];
        c.device = devices[d];
        c.platform_index = p;
        c.device_index = d;
        /* a device without its type or name would be chosen wrongly
         * for as long as the listing is kept */
        if (clGetDeviceInfo (devices[d], CL_DEVICE_TYPE, sizeof (c.type),
                &c.type, NULL) != CL_SUCCESS
            || clGetDeviceInfo (devices[d], CL_DEVICE_NAME,
                sizeof (c.name) - 1, c.name, NULL) != CL_SUCCESS
            || clGetDeviceInfo (devices[d], CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                sizeof (c.max_alloc), &c.max_alloc, NULL) != CL_SUCCESS
            || clGetDeviceInfo (devices[d], CL_DEVICE_LOCAL_MEM_SIZE,
                sizeof (c.local_mem), &c.local_mem, NULL) != CL_SUCCESS
            || clGetDeviceInfo (devices[d], CL_DEVICE_MAX_COMPUTE_UNITS,
                sizeof (c.compute_units), &c.compute_units, NULL)
            != CL_SUCCESS || !max_items_z (devices[d], &c.max_items_z))
          *whole = FALSE;
        c.fp64 = device_has_extension (devices[d], "cl_khr_fp64");
        if (test_as_gpu ()) {
          char where[24];

          g_snprintf (where, sizeof where, "%u:%u", p, d);
          if (g_str_equal (where, test_as_gpu ()))
            c.type = CL_DEVICE_TYPE_GPU;
        }
        g_array_append_val (out, c);
      }
    }
    g_free (devices);
  }
  g_free (platforms);
  if (out->len == 0) {
    g_array_unref (out);
    g_set_error (error, CLR_ERROR, CLR_ERROR_NO_DEVICE,
        "The OpenCL platforms have no devices. " CLR_INSTALL_HINT);
    return NULL;
  }
  return out;

no_platform:
  g_set_error (error, CLR_ERROR, CLR_ERROR_NO_PLATFORM,
      "No OpenCL platform found. " CLR_INSTALL_HINT);
  return NULL;
}

static const char *
type_name (cl_device_type t)
{
  if (t & CL_DEVICE_TYPE_GPU)
    return "GPU";
  if (t & CL_DEVICE_TYPE_CPU)
    return "CPU";
  if (t & CL_DEVICE_TYPE_ACCELERATOR)
    return "accelerator";
  return "other";
}

char *
clr_device_describe_all (void)
{
  GError *err = NULL;
  GArray *c = list_candidates (&err);
  GString *s;
  guint i;

  if (!c) {
    char *msg = g_strdup (err->message);
    g_error_free (err);
    return msg;
  }
  s = g_string_new (NULL);
  for (i = 0; i < c->len; i++) {
    ClrDeviceCandidate *d = &g_array_index (c, ClrDeviceCandidate, i);
    g_string_append_printf (s, "%s%u:%u %s (%s)", i ? "\n" : "",
        d->platform_index, d->device_index, d->name, type_name (d->type));
  }
  g_array_unref (c);
  return g_string_free (s, FALSE);
}

static gboolean
spec_is_index (const char *spec, guint * a, guint * b, gboolean * pair)
{
  char *end;
  guint64 x, y;

  if (!g_ascii_isdigit (spec[0]))
    return FALSE;
  x = g_ascii_strtoull (spec, &end, 10);
  if (*end == '\0') {
    *a = (guint) x;
    *pair = FALSE;
    return TRUE;
  }
  if (*end != ':' || !g_ascii_isdigit (end[1]))
    return FALSE;
  y = g_ascii_strtoull (end + 1, &end, 10);
  if (*end != '\0')
    return FALSE;
  *a = (guint) x;
  *b = (guint) y;
  *pair = TRUE;
  return TRUE;
}

/* The registry's device at candidate c's place (open, being opened or
 * described), or NULL; registry_lock held */
static ClrDevice *
registry_find (const ClrDeviceCandidate * c)
{
  GList *l;

  for (l = registry; l; l = l->next) {
    ClrDevice *d = l->data;
    if (d->platform_index == c->platform_index
        && d->device_index == c->device_index)
      return d;
  }
  return NULL;
}

/* How busy candidate c's device is: its references but the registry's
 * own (every element, engine, scheduler and staging block holds one); 0
 * for a device nobody has asked for. registry_lock held. */
static gint
device_load (const ClrDeviceCandidate * c)
{
  ClrDevice *d = registry_find (c);

  return d ? d->refcount - (d->cached ? 1 : 0) : 0;
}

/* Whether candidate c's device was marked lost; registry_lock held */
static gboolean
device_lost (const ClrDeviceCandidate * c)
{
  ClrDevice *d = registry_find (c);

  return d && d->lost;
}

/* "auto": the GPU with the fewest users, so that the instances of a
 * server with several cards spread over all of them (the first one wins
 * a tie: one card, always it), else the first device; never `from` nor a
 * device marked lost. NULL where none is left. registry_lock held. */
static const ClrDeviceCandidate *
choose_auto (GArray * c, const ClrDevice * from)
{
  const ClrDeviceCandidate *best = NULL, *first = NULL;
  gint best_load = G_MAXINT;
  guint i;

  for (i = 0; i < c->len; i++) {
    const ClrDeviceCandidate *d = &g_array_index (c, ClrDeviceCandidate, i);
    gint load;

    if ((from && d->platform_index == from->platform_index
            && d->device_index == from->device_index) || device_lost (d))
      continue;
    if (!first)
      first = d;
    if (!(d->type & CL_DEVICE_TYPE_GPU))
      continue;
    load = device_load (d);
    if (load < best_load) {
      best = d;
      best_load = load;
    }
  }
  return best ? best : first;
}

gboolean
clr_device_spec_is_auto (const char *spec)
{
  return !spec || !*spec || !g_ascii_strcasecmp (spec, "auto");
}

static const ClrDeviceCandidate *
choose (GArray * c, const char *spec)
{
  guint i, a = 0, b = 0;
  gboolean pair;

  if (clr_device_spec_is_auto (spec)) {
    const ClrDeviceCandidate *d = choose_auto (c, NULL);

    /* every device lost: the first, as before any was (a new element
     * tries it rather than refuse to start) */
    return d ? d : &g_array_index (c, ClrDeviceCandidate, 0);
  }
  if (!g_ascii_strcasecmp (spec, "gpu") || !g_ascii_strcasecmp (spec, "cpu")) {
    cl_device_type want = !g_ascii_strcasecmp (spec, "gpu") ?
        CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
    for (i = 0; i < c->len; i++)
      if (g_array_index (c, ClrDeviceCandidate, i).type & want)
        return &g_array_index (c, ClrDeviceCandidate, i);
    return NULL;
  }
  if (spec_is_index (spec, &a, &b, &pair)) {
    if (!pair)
      return a < c->len ? &g_array_index (c, ClrDeviceCandidate, a) : NULL;
    for (i = 0; i < c->len; i++) {
      ClrDeviceCandidate *d = &g_array_index (c, ClrDeviceCandidate, i);
      if (d->platform_index == a && d->device_index == b)
        return d;
    }
    return NULL;
  }
  {
    char *want = g_ascii_strdown (spec, -1);
    const ClrDeviceCandidate *found = NULL;

    for (i = 0; i < c->len && !found; i++) {
      ClrDeviceCandidate *d = &g_array_index (c, ClrDeviceCandidate, i);
      char *name = g_ascii_strdown (d->name, -1);
      if (strstr (name, want))
        found = d;
      g_free (name);
    }
    g_free (want);
    return found;
  }
}

static gboolean
device_has_extension (cl_device_id id, const char *ext)
{
  size_t size = 0;
  char *exts;
  gboolean found;

  if (clGetDeviceInfo (id, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS)
    return FALSE;
  exts = g_malloc0 (size + 1);
  clGetDeviceInfo (id, CL_DEVICE_EXTENSIONS, size, exts, NULL);
  found = strstr (exts, ext) != NULL;
  g_free (exts);
  return found;
}

/* A device of candidate c, described: what it is, no OpenCL object */
static ClrDevice *
device_describe (const ClrDeviceCandidate * c)
{
  ClrDevice *dev = g_new0 (ClrDevice, 1);

  dev->refcount = 1;
  dev->platform_index = c->platform_index;
  dev->device_index = c->device_index;
  dev->name = g_strdup (c->name);
  g_snprintf (dev->where, sizeof dev->where, "%u:%u", c->platform_index,
      c->device_index);
  /* CLRESAMPLE_NO_FP64 makes a device look like one without doubles: the
   * tests use it to run the float-only kernels and the F64 refusal on
   * devices that do have fp64 */
  dev->fp64 = c->fp64 && !clr_tuning_get ()->no_fp64;
  dev->gpu = !(c->type & CL_DEVICE_TYPE_CPU);
  dev->max_alloc = c->max_alloc;
  dev->local_mem = c->local_mem;
  dev->compute_units = c->compute_units;
  dev->max_items_z = c->max_items_z;
  g_mutex_init (&dev->lock);
  g_mutex_init (&dev->open_lock);
  dev->programs = g_ptr_array_new ();
  return dev;
}

static void
device_free_described (ClrDevice * dev)
{
  g_ptr_array_unref (dev->programs);
  g_mutex_clear (&dev->lock);
  g_mutex_clear (&dev->open_lock);
  g_free (dev->name);
  g_free (dev);
}

/* Makes dev's context and queue on candidate c (dev described from it,
 * or from the listing kept before: the same place) */
static gboolean
device_open_on (ClrDevice * dev, const ClrDeviceCandidate * c,
    GError ** error)
{
  cl_context_properties props[] = {
    CL_CONTEXT_PLATFORM, (cl_context_properties) c->platform, 0
  };
  cl_context context;
  cl_int status;
  const char *delay = g_getenv ("CLRESAMPLE_TEST_OPEN_DELAY_MS");

  if (delay && (c->type & CL_DEVICE_TYPE_GPU))
    g_usleep (1000 * g_ascii_strtoull (delay, NULL, 10));
  context = clCreateContext (props, 1, &c->device, NULL, NULL, &status);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "clCreateContext");
    return FALSE;
  }
  dev->queue = clCreateCommandQueue (context, c->device,
      clr_tuning_get ()->profile ? CL_QUEUE_PROFILING_ENABLE : 0, &status);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "clCreateCommandQueue");
    clReleaseContext (context);
    dev->queue = NULL;
    return FALSE;
  }
  dev->context = context;
  dev->platform = c->platform;
  dev->id = c->device;
  g_atomic_int_set (&dev->opened, TRUE);
  clr_log (CLR_LOG_INFO, "opened OpenCL device %u:%u '%s' (%s, fp64 %s)",
      c->platform_index, c->device_index, dev->name, type_name (c->type),
      dev->fp64 ? "yes" : "no");
  return TRUE;
}

/* A described device opened: the candidate of the process's listing at
 * its place. Its stream was set up from the listing kept before, which
 * the key says is this machine's; a device found otherwise now (a driver
 * changed under a key that did not see it) is opened all the same, with
 * a message, for the stream only asks it for work it can do. */
static gboolean
device_ensure_open (ClrDevice * dev, GError ** error)
{
  GArray *cands;
  const ClrDeviceCandidate *c = NULL;
  gboolean ok = FALSE;
  guint i;

  if (g_atomic_int_get (&dev->opened))
    return TRUE;
  g_mutex_lock (&dev->open_lock);
  if (dev->opened) {
    ok = TRUE;
    goto out;
  }
  if (!(cands = list_candidates (error)))
    goto out;
  for (i = 0; i < cands->len && !c; i++) {
    const ClrDeviceCandidate *d = &g_array_index (cands, ClrDeviceCandidate,
        i);
    if (d->platform_index == dev->platform_index
        && d->device_index == dev->device_index)
      c = d;
  }
  if (!c) {
    g_set_error (error, CLR_ERROR, CLR_ERROR_NO_DEVICE,
        "OpenCL device %s '%s' is not there any more", dev->where, dev->name);
  } else {
    if (strcmp (c->name, dev->name) != 0)
      clr_log (CLR_LOG_INFO, "OpenCL device %s was '%s' in the listing kept "
          "before, is '%s' now", dev->where, dev->name, c->name);
    ok = device_open_on (dev, c, error);
  }
  g_array_unref (cands);
out:
  g_mutex_unlock (&dev->open_lock);
  return ok;
}

/* The same where the caller has no error to give: the OpenCL call that
 * then gets no object says so */
static void
device_ensure_open_logged (ClrDevice * dev)
{
  GError *err = NULL;

  if (!device_ensure_open (dev, &err)) {
    clr_log (CLR_LOG_WARNING, "opening OpenCL device %s '%s' failed: %s",
        dev->where, dev->name, err->message);
    g_error_free (err);
  }
}

/* Candidate c's device, referenced: the registry's (open, being opened
 * or described), or described now and put there; registry_lock held */
static ClrDevice *
registry_ref (const ClrDeviceCandidate * c)
{
  ClrDevice *dev = registry_find (c);

  if (!dev) {
    dev = device_describe (c);
    registry = g_list_prepend (registry, dev);
  } else {
    dev->refcount++;
  }
  if (!dev->cached) {
    /* The registry keeps a reference of its own: a player that tears its
     * pipelines down and builds new ones keeps its context and its
     * compiled kernels (PoCL compiles for about a second).
     * clr_device_clear_cache () lets go of them. */
    dev->refcount++;
    dev->cached = TRUE;
  }
  return dev;
}

/* A candidate of c chosen by what the caller asked for, or NULL with
 * *error saying why none fits; registry_lock held */
typedef const ClrDeviceCandidate *(*ClrChooser) (GArray * c,
    gconstpointer what, GError ** error);

/* The device chooser picks of the process's listing, opened or found
 * open; NULL with *error where there is no listing, no device fits or it
 * fails to open */
static ClrDevice *
acquire_chosen (ClrChooser chooser, gconstpointer what, GError ** error)
{
  GArray *cands;
  const ClrDeviceCandidate *c;
  ClrDevice *dev = NULL;

  cands = list_candidates (error);
  if (!cands)
    return NULL;
  g_mutex_lock (&registry_lock);
  c = chooser (cands, what, error);
  if (c)
    dev = registry_ref (c);
  g_mutex_unlock (&registry_lock);
  g_array_unref (cands);
  /* opened outside the registry's lock: a driver that opens slowly (a
   * GPU's, 0.24-0.31 s) holds up nobody who wants another device, nor
   * clr_device_acquire_interim (); who wants this one waits in
   * device_ensure_open () for the open under way */
  if (dev && !device_ensure_open (dev, error)) {
    clr_device_unref (dev);
    dev = NULL;
  }
  return dev;
}

/* the `device` property's choice (what: the spec) */
static const ClrDeviceCandidate *
choose_spec (GArray * c, gconstpointer what, GError ** error)
{
  const char *spec = what;
  const ClrDeviceCandidate *d = choose (c, spec);

  if (!d) {
    char *all = clr_device_describe_all ();
    g_set_error (error, CLR_ERROR, CLR_ERROR_NO_DEVICE,
        "No OpenCL device matches device='%s'. Use auto, gpu, cpu, an index "
        "N or P:D, or part of a device name; available:\n%s", spec, all);
    g_free (all);
  }
  return d;
}

/* auto's choice of a device other than what (the ClrDevice left) */
static const ClrDeviceCandidate *
choose_other (GArray * c, gconstpointer what, GError ** error)
{
  const ClrDevice *from = what;
  const ClrDeviceCandidate *d = choose_auto (c, from);
  guint i, lost = 0;

  if (d)
    return d;
  for (i = 0; i < c->len; i++)
    lost += device_lost (&g_array_index (c, ClrDeviceCandidate, i));
  g_set_error (error, CLR_ERROR, CLR_ERROR_NO_DEVICE,
      "no other OpenCL device to go on on (%u in all, %u of them lost)",
      c->len, lost);
  return NULL;
}

ClrDevice *
clr_device_acquire (const char *spec, GError ** error)
{
  return acquire_chosen (choose_spec, spec, error);
}

ClrDevice *
clr_device_acquire_other (ClrDevice * from, GError ** error)
{
  return acquire_chosen (choose_other, from, error);
}

/* Keeps a whole listing for later processes (clr-device-inventory.h) */
static void
inventory_keep (GArray * cands)
{
  ClrInventoryDevice *d;
  guint i;

  if (test_as_gpu ())
    return;
  d = g_new0 (ClrInventoryDevice, cands->len);
  for (i = 0; i < cands->len; i++) {
    const ClrDeviceCandidate *c = &g_array_index (cands, ClrDeviceCandidate,
        i);

    d[i].platform_index = c->platform_index;
    d[i].device_index = c->device_index;
    d[i].type = c->type;
    d[i].fp64 = c->fp64;
    d[i].max_alloc = c->max_alloc;
    d[i].local_mem = c->local_mem;
    d[i].compute_units = c->compute_units;
    d[i].max_items_z = c->max_items_z;
    g_strlcpy (d[i].name, c->name, sizeof d[i].name);
  }
  clr_device_inventory_store (d, cands->len);
  g_free (d);
}

/* The listing an earlier process kept (clr-device-inventory.h) as
 * candidates (no platform or device ids: described devices only), or
 * NULL where there is none in this process's key */
static GArray *
inventory_candidates (void)
{
  GArray *inv, *kept;
  guint i;

  if (test_as_gpu () || !(inv = clr_device_inventory_load ()))
    return NULL;
  kept = g_array_new (FALSE, TRUE, sizeof (ClrDeviceCandidate));
  for (i = 0; i < inv->len; i++) {
    const ClrInventoryDevice *d = &g_array_index (inv, ClrInventoryDevice, i);
    ClrDeviceCandidate k = { 0, };

    k.platform_index = d->platform_index;
    k.device_index = d->device_index;
    k.type = d->type;
    k.fp64 = d->fp64;
    k.max_alloc = d->max_alloc;
    k.local_mem = d->local_mem;
    k.compute_units = d->compute_units;
    k.max_items_z = d->max_items_z;
    g_strlcpy (k.name, d->name, sizeof k.name);
    g_array_append_val (kept, k);
  }
  g_array_unref (inv);
  return kept;
}

/* The listing that says where a spec goes with no OpenCL call: the
 * process's own where it has one, else the one an earlier process kept;
 * NULL where neither is there. A listing under way is waited for where
 * `wait`, else passed by for the kept one. */
static GArray *
candidates_now (gboolean wait)
{
  GArray *c = NULL;

  if (wait)
    g_mutex_lock (&list_lock);
  else if (!g_mutex_trylock (&list_lock))
    return inventory_candidates ();
  if (known)
    c = g_array_ref (known);
  g_mutex_unlock (&list_lock);
  return c ? c : inventory_candidates ();
}

/* The first CPU device of cands not lost, or NULL; registry_lock held */
static const ClrDeviceCandidate *
choose_cpu (GArray * cands)
{
  guint i;

  for (i = 0; i < cands->len; i++) {
    const ClrDeviceCandidate *d = &g_array_index (cands, ClrDeviceCandidate,
        i);
    if ((d->type & CL_DEVICE_TYPE_CPU) && !device_lost (d))
      return d;
  }
  return NULL;
}

/* The CPU device spec names, described where it is not open (no OpenCL
 * call), referenced; NULL where spec names a GPU or nothing, or where no
 * listing says so without a call (candidates_now ()) */
static ClrDevice *
acquire_described_cpu (const char *spec)
{
  GArray *cands = candidates_now (TRUE);
  const ClrDeviceCandidate *c;
  ClrDevice *dev = NULL;

  if (!cands)
    return NULL;
  g_mutex_lock (&registry_lock);
  c = choose (cands, spec);
  if (c && (c->type & CL_DEVICE_TYPE_CPU))
    dev = registry_ref (c);
  g_mutex_unlock (&registry_lock);
  g_array_unref (cands);
  return dev;
}

ClrDevice *
clr_device_acquire_host (const char *spec, GError ** error)
{
  ClrDevice *dev = acquire_described_cpu (spec);

  if (!dev)
    return clr_device_acquire (spec, error);
  clr_log (CLR_LOG_INFO, "OpenCL device %s '%s' (CPU): %s", dev->where,
      dev->name, clr_device_is_open (dev) ? "open" :
      "served by the host, opened only if a kernel is asked for");
  return dev;
}

ClrDevice *
clr_device_acquire_interim (const char *spec)
{
  GArray *cands = candidates_now (FALSE);
  const ClrDeviceCandidate *c, *cpu;
  ClrDevice *chosen, *dev = NULL;

  if (!cands)
    return NULL;
  g_mutex_lock (&registry_lock);
  c = choose (cands, spec);
  if (c && !(c->type & CL_DEVICE_TYPE_CPU)) {
    chosen = registry_find (c);
    if ((!chosen || !g_atomic_int_get (&chosen->opened))
        && (cpu = choose_cpu (cands)))
      dev = registry_ref (cpu);
  }
  g_mutex_unlock (&registry_lock);
  g_array_unref (cands);
  if (dev)
    clr_log (CLR_LOG_INFO, "OpenCL device %s '%s' (CPU) serves until "
        "device '%s' is open", dev->where, dev->name, spec ? spec : "auto");
  return dev;
}

void
clr_device_set_lost (ClrDevice * dev)
{
  gboolean was;

  g_mutex_lock (&registry_lock);
  was = dev->lost;
  dev->lost = TRUE;
  g_mutex_unlock (&registry_lock);
  if (!was)
    clr_log (CLR_LOG_WARNING, "OpenCL device %s '%s' is lost: \"auto\" no "
        "longer picks it", dev->where, dev->name);
}

gboolean
clr_device_is_lost (ClrDevice * dev)
{
  gboolean lost;

  g_mutex_lock (&registry_lock);
  lost = dev->lost;
  g_mutex_unlock (&registry_lock);
  return lost;
}

gboolean
clr_device_lose (ClrDevice * dev, GError ** error)
{
  GError *probe = NULL;
  GString *msg;

  if (clr_device_probe (dev, &probe))
    return FALSE;
  clr_device_set_lost (dev);
  msg = g_string_new (NULL);
  g_string_printf (msg, "OpenCL device %s '%s' is lost: ", dev->where,
      dev->name);
  if (error && *error)
    g_string_append (msg, (*error)->message);
  else
    g_string_append (msg, "its work failed");
  g_string_append_printf (msg, "; then %s", probe->message);
  g_clear_error (&probe);
  if (error) {
    g_clear_error (error);
    g_set_error_literal (error, CLR_ERROR, CLR_ERROR_LOST, msg->str);
  }
  g_string_free (msg, TRUE);
  return TRUE;
}

gboolean
clr_device_probe (ClrDevice * dev, GError ** error)
{
  cl_bool available = CL_FALSE;
  cl_int status;
  cl_mem mem;

  if (!device_ensure_open (dev, error))
    return FALSE;
  status = clGetDeviceInfo (dev->id, CL_DEVICE_AVAILABLE, sizeof available,
      &available, NULL);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "clGetDeviceInfo (CL_DEVICE_AVAILABLE)");
    return FALSE;
  }
  if (!available) {
    clr_set_cl_error (error, CL_DEVICE_NOT_AVAILABLE,
        "clGetDeviceInfo (CL_DEVICE_AVAILABLE)");
    return FALSE;
  }
  mem = clCreateBuffer (dev->context, CL_MEM_READ_WRITE, 64, NULL, &status);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "clCreateBuffer");
    return FALSE;
  }
  status = clReleaseMemObject (mem);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "clReleaseMemObject");
    return FALSE;
  }
  return TRUE;
}

/* the specs prefetched (a set), and how many prefetches are still
 * running, under prefetch_lock; prefetch_done is signalled as each ends.
 * The threads are not joined but let go (g_thread_unref () at once): one
 * left finished and never joined until a clear, as the last of a process
 * always was, is a thread leaked (ThreadSanitizer says so at exit). */
static GMutex prefetch_lock;
static GCond prefetch_done;
static GHashTable *prefetches;
static guint prefetch_running;

static gpointer
prefetch_thread (gpointer data)
{
  gchar *spec = data;
  ClrDevice *dev = clr_device_acquire (g_str_equal (spec, "") ? NULL : spec,
      NULL);

  /* the registry keeps it open for the acquire to come */
  if (dev)
    clr_device_unref (dev);
  g_free (spec);
  g_mutex_lock (&prefetch_lock);
  prefetch_running--;
  g_cond_broadcast (&prefetch_done);
  g_mutex_unlock (&prefetch_lock);
  return NULL;
}

void
clr_device_prefetch_host (const char *spec)
{
  /* described now, as the acquire to come will find it: nothing to open */
  ClrDevice *dev = acquire_described_cpu (spec);

  if (dev)
    clr_device_unref (dev);
  else
    clr_device_prefetch (spec);
}

/* How long exit () waits for a prefetch under way: a GPU driver's first
 * load after boot took 1.9 s (H56); a driver that never answers must not
 * hold the process forever. */
#define CLR_PREFETCH_EXIT_WAIT_S 10

/* Waits for the prefetches under way (their devices then in the registry)
 * until end (monotonic), or as long as they take where end < 0 */
static void
prefetch_wait_until (gint64 end)
{
  g_mutex_lock (&prefetch_lock);
  while (prefetch_running > 0) {
    if (end < 0)
      g_cond_wait (&prefetch_done, &prefetch_lock);
    else if (!g_cond_wait_until (&prefetch_done, &prefetch_lock, end))
      break;
  }
  g_mutex_unlock (&prefetch_lock);
}

/* At exit (), the prefetches under way end first. A process that exits
 * with a thread inside the ICD loader's first clGetPlatformIDs () has the
 * drivers' and LLVM's data freed under that thread's dlopen () (H55: 6 of
 * 8 live starts on an H100 machine, AddressSanitizer's use-after-free).
 * The elements wait at every stop, at set_bus (NULL) and in finalize, but
 * an application may quit with its pipeline playing. */
static void
prefetch_wait_at_exit (void)
{
  prefetch_wait_until (g_get_monotonic_time () + CLR_PREFETCH_EXIT_WAIT_S *
      G_TIME_SPAN_SECOND);
}

void
clr_device_prefetch (const char *spec)
{
  const char *off = g_getenv ("CLRESAMPLE_PREFETCH");
  const char *key = spec ? spec : "";

  if (off && g_str_equal (off, "0"))
    return;
  g_mutex_lock (&prefetch_lock);
  if (!prefetches) {
    prefetches = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
        NULL);
    /* GStreamer never unloads a plugin: the handler stays mapped */
    atexit (prefetch_wait_at_exit);
  }
  if (!g_hash_table_contains (prefetches, key)) {
    g_hash_table_add (prefetches, g_strdup (key));
    prefetch_running++;
    g_thread_unref (g_thread_new ("clr-prefetch", prefetch_thread,
            g_strdup (key)));
  }
  g_mutex_unlock (&prefetch_lock);
}

gboolean
clr_device_prefetching (void)
{
  gboolean running;

  g_mutex_lock (&prefetch_lock);
  running = prefetch_running > 0;
  g_mutex_unlock (&prefetch_lock);
  return running;
}

void
clr_device_prefetch_wait (void)
{
  prefetch_wait_until (-1);
}

ClrDevice *
clr_device_ref (ClrDevice * dev)
{
  g_mutex_lock (&registry_lock);
  dev->refcount++;
  g_mutex_unlock (&registry_lock);
  return dev;
}

static void
device_free (ClrDevice * dev)
{
  guint i;

  for (i = 0; i < dev->programs->len; i++) {
    ClrProgramEntry *e = g_ptr_array_index (dev->programs, i);
    clReleaseProgram (e->program);
    g_free (e->options);
    g_free (e);
  }
  /* a device only described made no OpenCL call, nor does it now: the
   * ICD loader's first call would load every driver */
  if (dev->opened) {
    clReleaseCommandQueue (dev->queue);
    clReleaseContext (dev->context);
  }
  device_free_described (dev);
}

void
clr_device_unref (ClrDevice * dev)
{
  g_mutex_lock (&registry_lock);
  if (--dev->refcount > 0) {
    g_mutex_unlock (&registry_lock);
    return;
  }
  registry = g_list_remove (registry, dev);
  g_mutex_unlock (&registry_lock);
  device_free (dev);
}

/* clr_device_set_clear_hook (): under registry_lock */
static void (*clear_hook) (void);

void
clr_device_set_clear_hook (void (*hook) (void))
{
  g_mutex_lock (&registry_lock);
  clear_hook = hook;
  g_mutex_unlock (&registry_lock);
}

void
clr_device_clear_cache (void)
{
  GList *l, *drop = NULL;

  void (*hook) (void);

  /* a prefetch still opening would put its device back after the clear */
  clr_device_prefetch_wait ();
  /* free page-locked blocks hold their device */
  g_mutex_lock (&registry_lock);
  hook = clear_hook;
  g_mutex_unlock (&registry_lock);
  if (hook)
    hook ();
  g_mutex_lock (&registry_lock);
  for (l = registry; l; l = l->next) {
    ClrDevice *dev = l->data;
    if (dev->cached) {
      dev->cached = FALSE;
      if (--dev->refcount == 0)
        drop = g_list_prepend (drop, dev);
    }
  }
  for (l = drop; l; l = l->next)
    registry = g_list_remove (registry, l->data);
  g_mutex_unlock (&registry_lock);
  g_list_free_full (drop, (GDestroyNotify) device_free);
}

const char *
clr_device_get_name (ClrDevice * dev)
{
  return dev->name;
}

const char *
clr_device_get_where (ClrDevice * dev)
{
  return dev->where;
}

gboolean
clr_device_has_fp64 (ClrDevice * dev)
{
  return dev->fp64;
}

gboolean
clr_device_is_gpu (ClrDevice * dev)
{
  return dev->gpu;
}

cl_context
clr_device_get_context (ClrDevice * dev)
{
  device_ensure_open_logged (dev);
  return dev->context;
}

cl_command_queue
clr_device_get_queue (ClrDevice * dev)
{
  device_ensure_open_logged (dev);
  return dev->queue;
}

cl_device_id
clr_device_get_id (ClrDevice * dev)
{
  device_ensure_open_logged (dev);
  return dev->id;
}

gboolean
clr_device_is_open (ClrDevice * dev)
{
  return g_atomic_int_get (&dev->opened);
}

cl_ulong
clr_device_get_max_alloc (ClrDevice * dev)
{
  return dev->max_alloc;
}

cl_ulong
clr_device_get_local_mem (ClrDevice * dev)
{
  return dev->local_mem;
}

cl_uint
clr_device_get_compute_units (ClrDevice * dev)
{
  return dev->compute_units;
}

size_t
clr_device_get_max_items_z (ClrDevice * dev)
{
  return dev->max_items_z;
}

static char *
build_log (ClrDevice * dev, cl_program program)
{
  size_t size = 0;
  char *log;

  if (clGetProgramBuildInfo (program, dev->id, CL_PROGRAM_BUILD_LOG, 0, NULL,
          &size) != CL_SUCCESS || size == 0)
    return g_strdup ("(no build log)");
  log = g_malloc0 (size + 1);
  clGetProgramBuildInfo (program, dev->id, CL_PROGRAM_BUILD_LOG, size, log,
      NULL);
  return log;
}

static void
key_add_string (GByteArray * key, const char *s)
{
  /* with its terminating zero, so that no two lists of strings join into
   * the same bytes */
  g_byte_array_append (key, (const guint8 *) (s ? s : ""),
      (guint) strlen (s ? s : "") + 1);
}

static void
key_add_info (GByteArray * key, cl_device_id id, cl_platform_id platform,
    cl_uint param, gboolean of_platform)
{
  char value[1024] = "";

  if (of_platform)
    clGetPlatformInfo (platform, param, sizeof value - 1, value, NULL);
  else
    clGetDeviceInfo (id, param, sizeof value - 1, value, NULL);
  key_add_string (key, value);
}

/* What a compiled program depends on: the device and its driver, the
 * options, the source itself (so that any change of a kernel, or of the
 * plugin that embeds them, makes another key) */
static GByteArray *
program_key (ClrDevice * dev, const char *source, const char *options)
{
  GByteArray *key = g_byte_array_new ();

  key_add_info (key, NULL, dev->platform, CL_PLATFORM_NAME, TRUE);
  key_add_info (key, NULL, dev->platform, CL_PLATFORM_VERSION, TRUE);
  key_add_info (key, dev->id, NULL, CL_DEVICE_NAME, FALSE);
  key_add_info (key, dev->id, NULL, CL_DEVICE_VERSION, FALSE);
  key_add_info (key, dev->id, NULL, CL_DRIVER_VERSION, FALSE);
  key_add_string (key, options);
  key_add_string (key, source);
  return key;
}

/* The program built from the binary the cache holds for key, or NULL (no
 * entry, or one the driver refuses: then it is built from source, and
 * its binary replaces the entry) */
static cl_program
program_from_cache (ClrDevice * dev, GByteArray * key, const char *options)
{
  GBytes *binary = clr_disk_cache_load ("program", key->data, key->len);
  const unsigned char *bytes;
  cl_program program;
  cl_int status, binary_status = CL_SUCCESS;
  size_t len;

  if (!binary)
    return NULL;
  bytes = g_bytes_get_data (binary, &len);
  program = clCreateProgramWithBinary (dev->context, 1, &dev->id, &len,
      &bytes, &binary_status, &status);
  g_bytes_unref (binary);
  if (status == CL_SUCCESS && binary_status == CL_SUCCESS)
    status = clBuildProgram (program, 1, &dev->id, options, NULL, NULL);
  if (status != CL_SUCCESS || binary_status != CL_SUCCESS) {
    clr_log (CLR_LOG_DEBUG, "the cached OpenCL binary for '%s' was refused "
        "(%s): building from source", dev->name, clr_cl_status_name (status
            != CL_SUCCESS ? status : binary_status));
    if (program)
      clReleaseProgram (program);
    return NULL;
  }
  return program;
}

static void
program_to_cache (ClrDevice * dev, cl_program program, GByteArray * key)
{
  size_t len = 0;
  unsigned char *binary;
  gchar *dir = clr_disk_cache_dir ();

  if (!dir)
    return;
  g_free (dir);
  if (clGetProgramInfo (program, CL_PROGRAM_BINARY_SIZES, sizeof len, &len,
          NULL) != CL_SUCCESS || len == 0)
    return;
  binary = g_try_malloc (len);
  if (!binary)
    return;
  if (clGetProgramInfo (program, CL_PROGRAM_BINARIES, sizeof binary,
          &binary, NULL) == CL_SUCCESS)
    clr_disk_cache_store ("program", key->data, key->len, binary, len);
  g_free (binary);
}

cl_program
clr_device_get_program (ClrDevice * dev, const char *source,
    const char *options, GError ** error)
{
  cl_program program = NULL;
  GByteArray *key = NULL;
  cl_int status;
  guint i;
  gint64 t0;

  if (!device_ensure_open (dev, error))
    return NULL;
  g_mutex_lock (&dev->lock);
  for (i = 0; i < dev->programs->len; i++) {
    ClrProgramEntry *e = g_ptr_array_index (dev->programs, i);
    if (e->source == source && !g_strcmp0 (e->options, options)) {
      program = e->program;
      goto out;
    }
  }

  t0 = g_get_monotonic_time ();
  key = program_key (dev, source, options);
  program = program_from_cache (dev, key, options);
  if (program) {
    clr_log (CLR_LOG_INFO, "OpenCL program for '%s' (options '%s') from the "
        "cache in %.1f ms", dev->name, options,
        (g_get_monotonic_time () - t0) / 1000.0);
    goto add;
  }
  program = clCreateProgramWithSource (dev->context, 1, &source, NULL, &status);
  if (status != CL_SUCCESS) {
    clr_set_cl_error (error, status, "clCreateProgramWithSource");
    program = NULL;
    goto out;
  }
  status = clBuildProgram (program, 1, &dev->id, options, NULL, NULL);
  if (status != CL_SUCCESS) {
    char *log = build_log (dev, program);
    clr_log (CLR_LOG_DEBUG, "OpenCL build log for '%s' (options '%s'):\n%s",
        dev->name, options, log);
    g_set_error (error, CLR_ERROR, CLR_ERROR_BUILD,
        "Building the OpenCL kernels for '%s' failed: %s (%d); the build log "
        "is in the debug log (GST_DEBUG=clresample*:5)", dev->name,
        clr_cl_status_name (status), status);
    g_free (log);
    clReleaseProgram (program);
    program = NULL;
    goto out;
  }
  clr_log (CLR_LOG_INFO, "built OpenCL program for '%s' (options '%s') in "
      "%.0f ms", dev->name, options, (g_get_monotonic_time () - t0) / 1000.0);
  program_to_cache (dev, program, key);
add:
  {
    ClrProgramEntry *e = g_new0 (ClrProgramEntry, 1);
    e->options = g_strdup (options);
    e->source = source;
    e->program = program;
    g_ptr_array_add (dev->programs, e);
  }

out:
  g_mutex_unlock (&dev->lock);
  if (key)
    g_byte_array_unref (key);
  return program;
}

cl_int
clr_kernel_set_args_from (cl_kernel kernel, cl_uint first,
    const ClrKernelArg * args, cl_uint n)
{
  cl_int status = CL_SUCCESS;
  cl_uint i;

  for (i = 0; i < n && status == CL_SUCCESS; i++)
    status = args[i].svm ?
        clSetKernelArgSVMPointer (kernel, first + i, args[i].svm) :
        clSetKernelArg (kernel, first + i, args[i].size, args[i].value);
  return status;
}

cl_int
clr_kernel_set_args (cl_kernel kernel, const ClrKernelArg * args, cl_uint n)
{
  return clr_kernel_set_args_from (kernel, 0, args, n);
}
