/* librcl-no-udev.a: libudev's "no udev here" answers, for -static links of librcl.
 *
 * librcl.a needs libhwloc.a, whose Linux backend calls five libudev functions
 * (`pkg-config --static --libs hwloc` names -ludev). Debian, like most distributions, ships
 * libudev as a shared library only, so a -static link of a converted program had undefined
 * references to udev_new and the others, and failed. A static program cannot use the udev
 * daemon's database anyway; this archive stands in for -ludev there (rcl-cc and rcl-c++ link
 * it after libhwloc.a when the system has no libudev.a: CMakeLists.txt).
 *
 * Each function gives the answer libudev itself gives when udev cannot be used: udev_new()
 * returns NULL, and hwloc then skips udev altogether (it asks udev only for the attributes of
 * block devices, the serial and model numbers of disks, and only when the udev context is not
 * NULL). librcl reads none of those attributes: it loads the topology of cores and caches.
 * The lookups return NULL (no device, no property) and the unref calls do nothing, should any
 * caller reach them. */
#include <stddef.h>

struct udev;
struct udev_device;

struct udev *udev_new(void);
struct udev *udev_unref(struct udev *udev);
struct udev_device *udev_device_new_from_subsystem_sysname(struct udev *udev, const char *subsystem,
                                                           const char *sysname);
const char *udev_device_get_property_value(struct udev_device *device, const char *key);
struct udev_device *udev_device_unref(struct udev_device *device);

struct udev *udev_new(void) {
    return NULL;
}

struct udev *udev_unref(struct udev *udev) {
    (void)udev;
    return NULL;
}

struct udev_device *udev_device_new_from_subsystem_sysname(struct udev *udev, const char *subsystem,
                                                           const char *sysname) {
    (void)udev;
    (void)subsystem;
    (void)sysname;
    return NULL;
}

const char *udev_device_get_property_value(struct udev_device *device, const char *key) {
    (void)device;
    (void)key;
    return NULL;
}

struct udev_device *udev_device_unref(struct udev_device *device) {
    (void)device;
    return NULL;
}
