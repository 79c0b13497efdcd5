/* rel_setuid: a small program for guest case 55-reliability's set-uid check. It initialises both libraries
 * (ibv_get_device_list, rdma_create_event_channel) and prints "devices N sysfs P ruid R euid E secure S" (P:
 * ibv_get_sysfs_path(), an IBVERBS_1.0 export that rdma-core declares only in its uninstalled driver.h). The case runs a
 * set-uid-root copy of it as an unprivileged user with VERBS_LOG_LEVEL / VERBS_LOG_FILE / SYSFS_PATH set: in such
 * an AT_SECURE process our libraries must ignore every variable that names a file (no log file is created, sysfs is
 * /sys), as glibc's secure_getenv does.
 */
#include <stdio.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

const char *ibv_get_sysfs_path(void);

int main(void)
{
	struct rdma_event_channel *ch;
	struct ibv_device **list;
	int n = -1;

	list = ibv_get_device_list(&n);
	if (list)
		ibv_free_device_list(list);
	ch = rdma_create_event_channel();
	if (ch)
		rdma_destroy_event_channel(ch);
	printf("devices %d sysfs %s ruid %d euid %d secure %lu\n", n, ibv_get_sysfs_path(), (int)getuid(), (int)geteuid(),
	       getauxval(AT_SECURE));
	return 0;
}
