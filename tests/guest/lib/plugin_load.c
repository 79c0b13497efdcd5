/* The plug-in loader of the guest cases 40-plugin and 70-release: dlopen each argument with RTLD_NOW (every
 * undefined symbol bound now, or the load fails) and RTLD_GLOBAL, print "LOADED <path>" or "NOLOAD <path>: <dlerror>",
 * then "LIBIBVERBS <path>": the libibverbs.so.1 the process got. Exit status 1 if any failed to load. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int bad = 0;
	for (int i = 1; i < argc; i++) {
		void *h = dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL);
		if (!h) {
			printf("NOLOAD %s: %s\n", argv[i], dlerror());
			bad++;
		} else {
			printf("LOADED %s\n", argv[i]);
		}
	}
	void *v = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_NOLOAD);
	struct link_map *lm = NULL;
	if (v && dlinfo(v, RTLD_DI_LINKMAP, &lm) == 0 && lm)
		printf("LIBIBVERBS %s\n", lm->l_name);
	return bad != 0;
}
