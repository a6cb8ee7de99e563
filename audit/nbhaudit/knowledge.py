# SPDX-License-Identifier: GPL-2.0
"""What the audit knows about kernel APIs: accessors, section openers and
closers, and where softirq context starts.  Plain tables, so that a new
API is one line."""

import re

# this_cpu_ptr(&x) and friends: the result points at the CPU's copy.
PTR_ACCESSORS = {"this_cpu_ptr", "raw_cpu_ptr", "get_cpu_ptr", "per_cpu_ptr",
                 "get_cpu_var", "per_cpu", "__get_cpu_var"}
# Accessors that also disable preemption until the matching put.
PREEMPT_ACCESSORS = {"get_cpu_ptr", "get_cpu_var"}
# Accessors whose second argument names the CPU.
CPU_ARG = {"per_cpu_ptr", "per_cpu"}

# this_cpu_inc(x) and co are single IRQ-safe instructions (or IRQ-off
# sequences); __this_cpu_* and raw_cpu_* are not.
_OP = re.compile(r"^(this_cpu|__this_cpu|raw_cpu)_(\w+)$")


def op_accessor(name):
    """'irq-safe' / 'plain' for a per-CPU operation, None otherwise."""
    if not name.startswith(("this_cpu_", "__this_cpu_", "raw_cpu_")):
        return None
    m = _OP.match(name)
    if not m or m.group(2) == "ptr":
        return None
    return "irq-safe" if m.group(1) == "this_cpu" else "plain"


# Sections.  Each call opens or closes one kind of section.
BH_ON = {"local_bh_disable", "__local_bh_disable_ip", "rcu_read_lock_bh",
         "__netif_tx_lock_bh", "netif_tx_lock_bh", "netif_addr_lock_bh",
         "lock_sock_fast"}
BH_OFF = {"local_bh_enable", "__local_bh_enable_ip", "_local_bh_enable",
          "rcu_read_unlock_bh", "__netif_tx_unlock_bh", "netif_tx_unlock_bh",
          "netif_addr_unlock_bh", "unlock_sock_fast"}
# u64_stats_update_begin_irqsave() disables IRQs where the seqcount exists
# (32-bit); on 64-bit the u64_stats_t counters are IRQ-safe local64 ops.
IRQ_ON = {"local_irq_disable", "local_irq_save", "raw_local_irq_save",
          "raw_local_irq_disable", "hard_irq_disable",
          "u64_stats_update_begin_irqsave"}
IRQ_OFF = {"local_irq_enable", "local_irq_restore", "raw_local_irq_restore",
           "raw_local_irq_enable", "u64_stats_update_end_irqrestore"}
PREEMPT_ON = {"preempt_disable", "preempt_disable_notrace", "get_cpu",
              "get_cpu_ptr", "get_cpu_var", "get_cpu_light"}
PREEMPT_OFF = {"preempt_enable", "preempt_enable_notrace",
               "preempt_enable_no_resched", "put_cpu", "put_cpu_ptr",
               "put_cpu_var", "put_cpu_light"}
NESTED_ON = {"local_lock_nested_bh"}
NESTED_OFF = {"local_unlock_nested_bh"}
LOCAL_ON = {"local_lock", "local_lock_irq", "local_lock_irqsave"}
LOCAL_OFF = {"local_unlock", "local_unlock_irq", "local_unlock_irqrestore"}
# Members that are synchronization state, not data (like the *lock members
# cfacts already skips): passing &p->syncp to u64_stats_update_begin().
SYNC_MEMBERS = {"syncp"}
ASSERT_HELD = {"lockdep_assert_held", "lockdep_assert_held_once"}


def bh_on(name):
    return name in BH_ON or (name.endswith("lock_bh") and "unlock" not in name
                             and "trylock" not in name)


def bh_off(name):
    return name in BH_OFF or name.endswith("unlock_bh")


def lock_on(name):
    """A lock acquisition whose argument names what it protects."""
    return (("lock" in name and "unlock" not in name and "trylock" not in name
             and not name.startswith("local_") and "rcu" not in name
             and "init" not in name and "assert" not in name
             and "held" not in name and "_bh" not in name and "sock" not in name)
            or name.endswith("lock_bh") and "unlock" not in name)


def lock_off(name):
    return "unlock" in name and not name.startswith("local_") and "rcu" not in name


# Where softirq context starts: registration calls, argument index of the
# callback, and why it runs in softirq context.
REGISTRATIONS = {
    "netif_napi_add": (2, "NAPI poll callback, run by net_rx_action()"),
    "netif_napi_add_weight": (2, "NAPI poll callback, run by net_rx_action()"),
    "netif_napi_add_tx": (2, "NAPI poll callback, run by net_rx_action()"),
    "netif_napi_add_tx_weight": (2, "NAPI poll callback, run by net_rx_action()"),
    "netif_napi_add_config": (2, "NAPI poll callback, run by net_rx_action()"),
    "netif_threaded_napi_add": (2, "NAPI poll callback, run by net_rx_action()"),
    "timer_setup": (1, "timer callback (TIMER_SOFTIRQ)"),
    "setup_timer": (1, "timer callback (TIMER_SOFTIRQ)"),
    "tasklet_init": (1, "tasklet (TASKLET_SOFTIRQ)"),
    "tasklet_setup": (1, "tasklet (TASKLET_SOFTIRQ)"),
    "open_softirq": (1, "softirq handler (open_softirq)"),
    "call_rcu": (1, "RCU callback (RCU_SOFTIRQ, BH disabled in rcuc on RT)"),
}
TOP_REGISTRATIONS = {
    "DEFINE_TIMER": "timer callback (TIMER_SOFTIRQ)",
    "DECLARE_TASKLET": "tasklet (TASKLET_SOFTIRQ)",
    "DECLARE_TASKLET_OLD": "tasklet (TASKLET_SOFTIRQ)",
    "DECLARE_TASKLET_DISABLED": "tasklet (TASKLET_SOFTIRQ)",
}
# Function pointer fields whose targets run in softirq (or with BH
# disabled): (field, struct type or None for any, how or None for any).
ENTRY_FIELDS = [
    ("poll", None, "assign", "NAPI poll callback, run by net_rx_action()"),
    ("function", None, "assign", "timer callback (softirq expiry)"),
    ("handler", "net_protocol", None, "L4 receive handler (ip_local_deliver_finish, softirq)"),
    ("err_handler", "net_protocol", None, "ICMP error handler (receive path, softirq)"),
    ("handler", "inet6_protocol", None, "L4 receive handler (ip6_input_finish, softirq)"),
    ("err_handler", "inet6_protocol", None, "ICMPv6 error handler (receive path, softirq)"),
    ("func", "packet_type", None, "packet_type handler (__netif_receive_skb, softirq)"),
    ("hook", "nf_hook_ops", None, "netfilter hook (receive/forward path, softirq)"),
    ("ndo_start_xmit", "net_device_ops", None, "ndo_start_xmit (__dev_queue_xmit under rcu_read_lock_bh)"),
    ("enqueue", "Qdisc_ops", None, "qdisc enqueue (__dev_queue_xmit under rcu_read_lock_bh)"),
    ("dequeue", "Qdisc_ops", None, "qdisc dequeue (qdisc_run with BH disabled)"),
    ("encap_rcv", None, None, "UDP encapsulation receive (udp_queue_rcv_skb, softirq)"),
]
# BPF helpers returned by these *_func_proto() functions run from XDP
# (NAPI poll), tc (ingress softirq / egress under rcu_read_lock_bh) and
# lwt (receive/transmit paths).
BPF_PROTO_FUNCS = re.compile(r"^(xdp|tc_cls_act|lwt_\w+|lwt|sk_skb|bpf_sk_base|"
                             r"bpf_base)_func_proto$")
BPF_PROTO_ROOTS = re.compile(r"^(xdp|tc_cls_act|lwt_\w+)_func_proto$")

# Exported functions whose callers (drivers, outside the audited paths)
# run in NAPI poll: the API contract says softirq context.
NAPI_APIS = {
    "napi_gro_receive": "driver NAPI poll API",
    "napi_gro_frags": "driver NAPI poll API",
    "napi_complete_done": "driver NAPI poll API",
    "napi_alloc_skb": "driver NAPI poll API (__napi_alloc_skb)",
    "__napi_alloc_skb": "driver NAPI poll API",
    "napi_alloc_frag": "driver NAPI poll API",
    "napi_alloc_frag_align": "driver NAPI poll API",
    "__napi_alloc_frag_align": "driver NAPI poll API",
    "napi_consume_skb": "driver NAPI poll API (budget != 0)",
    "napi_build_skb": "driver NAPI poll API",
    "xdp_do_redirect": "driver XDP API, called from NAPI poll",
    "xdp_do_flush": "driver XDP API, called from NAPI poll",
    "xdp_do_flush_map": "driver XDP API, called from NAPI poll",
    "xdp_do_generic_redirect": "generic XDP, run from the receive path",
    "do_xdp_generic": "generic XDP, run from the receive path",
}

# Calls that take a function to run later in process context: their
# function arguments are not call edges.
DEFERRAL = {"INIT_WORK", "INIT_DELAYED_WORK", "INIT_RCU_WORK", "kthread_run",
            "kthread_create", "kthread_create_on_node", "queue_work",
            "schedule_work", "register_pernet_subsys", "register_netdevice_notifier",
            "register_pernet_device", "module_init", "module_exit",
            "EXPORT_SYMBOL", "EXPORT_SYMBOL_GPL", "kthread_create_on_cpu",
            "smpboot_register_percpu_thread", "cpuhp_setup_state",
            "cpuhp_setup_state_nocalls", "init_srcu_struct", "stop_machine",
            "on_each_cpu", "smp_call_function_single", "rcu_work"} | set(REGISTRATIONS)
# Field-call targets are resolved by field name; a name assigned more
# functions than this is too generic to mean anything.
MAX_FIELD_TARGETS = 40

# Calls that sleep. A function that makes one between dropping its
# caller's BH lock and taking it again (__lock_sock(): schedule();
# __release_sock(): cond_resched()) never runs in softirq, where
# sleeping is a bug: the window is outside the caller's section
# however a softirq entry seems to reach the function (analyze.py).
# Nor is a call of one a softirq or BH-section edge: what runs beneath
# it runs because the caller sleeps.
SLEEPING_CALLS = {"schedule", "schedule_timeout", "schedule_preempt_disabled",
                  "io_schedule", "io_schedule_timeout", "cond_resched", "msleep",
                  "msleep_interruptible", "ssleep", "usleep_range", "mutex_lock",
                  "mutex_lock_interruptible", "mutex_lock_killable", "down", "down_read",
                  "down_write", "wait_for_completion", "wait_for_completion_timeout",
                  "wait_for_completion_interruptible", "synchronize_rcu", "synchronize_net",
                  # take the chain's rw_semaphore / SRCU: callbacks may sleep
                  "blocking_notifier_call_chain", "blocking_notifier_call_chain_robust",
                  "srcu_notifier_call_chain"}
# Macros that call their second..last function argument, first is the pointer.
INDIRECT_CALL = re.compile(r"^INDIRECT_CALL_(\d|INET|INET4)$")

# --- process context: where a call chain may end for a "not-bh" verdict ---
#
# A function with no softirq caller is not taken to run in process
# context: every chain of callers up to it must start in one of these.
# A chain that starts anywhere else (a function without a known caller:
# exported, passed to code outside the audited files, stored in a field
# nothing calls) leaves the access "unknown".

_SOCK_PROTO = ("close", "pre_connect", "connect", "disconnect", "accept", "ioctl", "init",
               "shutdown", "setsockopt", "getsockopt", "compat_ioctl", "sendmsg",
               "recvmsg", "sendpage", "splice_eof", "bind", "bind_add")
_NDO_CONTROL = ("ndo_open", "ndo_stop", "ndo_init", "ndo_uninit", "ndo_eth_ioctl",
                "ndo_do_ioctl", "ndo_siocdevprivate", "ndo_siocbond", "ndo_siocwandev",
                "ndo_change_mtu", "ndo_set_mac_address", "ndo_bpf", "ndo_setup_tc",
                "ndo_vlan_rx_add_vid", "ndo_vlan_rx_kill_vid", "ndo_add_slave",
                "ndo_del_slave", "ndo_fdb_add", "ndo_fdb_del", "ndo_fdb_dump",
                "ndo_bridge_setlink", "ndo_bridge_getlink", "ndo_bridge_dellink",
                "ndo_change_carrier", "ndo_set_features", "ndo_fix_features",
                "ndo_neigh_construct", "ndo_neigh_destroy", "ndo_get_iflink",
                "ndo_set_vf_mac", "ndo_set_vf_vlan", "ndo_get_vf_config")
_QDISC_CONTROL = ("init", "destroy", "change", "attach", "dump", "dump_stats",
                  "change_tx_queue_len", "change_real_num_tx", "ingress_block_set",
                  "egress_block_set", "ingress_block_get", "egress_block_get")
_CLASS_CONTROL = ("graft", "leaf", "find", "change", "delete", "walk", "tcf_block",
                  "bind_tcf", "unbind_tcf", "dump", "dump_stats", "select_queue",
                  "change_tx_queue_len")
_CLS_CONTROL = ("init", "destroy", "get", "put", "change", "delete", "walk", "dump",
                "terse_dump", "tmplt_create", "tmplt_destroy", "tmplt_dump", "bind_class",
                "reoffload", "hw_add", "hw_del")
_ACT_CONTROL = ("init", "cleanup", "dump", "lookup", "walk", "get_fill_size",
                "get_dev", "offload_act_setup")
_MAP_SYSCALL = ("map_alloc_check", "map_alloc", "map_release", "map_free",
                "map_get_next_key", "map_release_uref", "map_lookup_batch",
                "map_lookup_and_delete_batch", "map_update_batch", "map_delete_batch",
                "map_check_btf", "map_mmap", "map_poll", "map_seq_show_elem",
                "map_direct_value_addr", "map_direct_value_meta",
                "map_set_for_each_callback_args", "map_meta_equal", "map_local_storage_charge",
                "map_local_storage_uncharge", "map_owner_storage_ptr")

# (struct, field or None for every field) -> why a function stored there
# runs in process context.
PROCESS_FIELDS = dict(
    [(("proto_ops", None), "socket call (system call)"),
     (("net_proto_family", "create"), "socket() system call"),
     (("file_operations", None), "file operation (system call)"),
     (("proc_ops", None), "procfs file operation (system call)"),
     (("seq_operations", None), "seq_file operation (read() system call)"),
     (("genl_ops", None), "generic netlink request (sender's process context)"),
     (("genl_small_ops", None), "generic netlink request (sender's process context)"),
     (("genl_split_ops", None), "generic netlink request (sender's process context)"),
     (("genl_family", "pre_doit"), "generic netlink request (sender's process context)"),
     (("genl_family", "post_doit"), "generic netlink request (sender's process context)"),
     (("netlink_kernel_cfg", "input"), "netlink request (sender's process context)"),
     (("netlink_dump_control", "dump"), "netlink dump (recvmsg() system call)"),
     (("netlink_dump_control", "start"), "netlink dump (sender's process context)"),
     (("netlink_dump_control", "done"), "netlink dump (process context)"),
     (("ctl_table", "proc_handler"), "sysctl handler (system call)"),
     (("kernel_param_ops", None), "module parameter handler (sysfs or module load)"),
     (("pernet_operations", None), "netns init/exit (process context, cleanup_net work)"),
     (("rtnl_link_ops", None), "rtnetlink link operation (RTNL, process context)"),
     (("rtnl_af_ops", None), "rtnetlink address family operation (RTNL, process context)"),
     (("ethtool_ops", None), "ethtool request (RTNL, process context)"),
     (("nf_sockopt_ops", None), "netfilter socket option (system call)"),
     (("bpf_verifier_ops", None), "BPF verifier callback (bpf() system call)"),
     (("bpf_prog_ops", "test_run"), "BPF_PROG_TEST_RUN (bpf() system call)"),
     (("smp_hotplug_thread", "thread_fn"), "per-CPU kthread"),
     (("smp_hotplug_thread", "setup"), "per-CPU kthread"),
     (("inet_diag_handler", None), "sock_diag request (netlink, process context)"),
     (("sock_diag_handler", None), "sock_diag request (netlink, process context)"),
     (("device_attribute", None), "sysfs attribute (system call)"),
     (("kobj_attribute", None), "sysfs attribute (system call)"),
     (("class_attribute", None), "sysfs attribute (system call)"),
     (("xt_match", "checkentry"), "x_tables rule setup (setsockopt)"),
     (("xt_match", "destroy"), "x_tables rule removal (setsockopt)"),
     (("xt_target", "checkentry"), "x_tables rule setup (setsockopt)"),
     (("xt_target", "destroy"), "x_tables rule removal (setsockopt)"),
     (("nft_expr_ops", "init"), "nf_tables rule setup (nfnetlink, process context)"),
     (("nft_expr_ops", "destroy"), "nf_tables rule removal (process context)"),
     (("nft_expr_ops", "dump"), "nf_tables dump (nfnetlink, process context)"),
     (("nft_expr_ops", "validate"), "nf_tables rule validation (nfnetlink)")]
    + [(("proto", f), "socket protocol call (system call)") for f in _SOCK_PROTO]
    + [(("net_device_ops", f), "net_device control operation (RTNL, process context)")
       for f in _NDO_CONTROL]
    + [(("Qdisc_ops", f), "qdisc control operation (RTNL, process context)")
       for f in _QDISC_CONTROL]
    + [(("Qdisc_class_ops", f), "qdisc class control operation (RTNL, process context)")
       for f in _CLASS_CONTROL]
    + [(("tcf_proto_ops", f), "tc filter control operation (RTNL, process context)")
       for f in _CLS_CONTROL]
    + [(("tc_action_ops", f), "tc action control operation (RTNL, process context)")
       for f in _ACT_CONTROL]
    + [(("bpf_map_ops", f), "BPF map operation of the bpf() system call")
       for f in _MAP_SYSCALL])

# Calls that hand a function to process context: argument indexes.
_WORK = "work item (kworker, process context)"
_KTHREAD = "kthread (process context)"
PROCESS_REGISTRATIONS = {
    "INIT_WORK": ((1,), _WORK), "__INIT_WORK": ((1,), _WORK),
    "INIT_WORK_ONSTACK": ((1,), _WORK), "INIT_DELAYED_WORK": ((1,), _WORK),
    "INIT_DEFERRABLE_WORK": ((1,), _WORK), "INIT_RCU_WORK": ((1,), _WORK),
    "INIT_DELAYED_WORK_ONSTACK": ((1,), _WORK), "kthread_init_work": ((1,), _WORK),
    "kthread_run": ((0,), _KTHREAD), "kthread_create": ((0,), _KTHREAD),
    "kthread_create_on_node": ((0,), _KTHREAD), "kthread_create_on_cpu": ((0,), _KTHREAD),
    "kthread_run_on_cpu": ((0,), _KTHREAD),
    "rtnl_register": ((2, 3), "rtnetlink handler (RTNL, process context)"),
    "rtnl_register_module": ((3, 4), "rtnetlink handler (RTNL, process context)"),
    "cpuhp_setup_state": ((2, 3), "CPU hotplug callback (not in BH context)"),
    "cpuhp_setup_state_nocalls": ((2, 3), "CPU hotplug callback (not in BH context)"),
    "cpuhp_setup_state_multi": ((2, 3), "CPU hotplug callback (not in BH context)"),
    "on_each_cpu": ((0,), "IPI function (hardirq, IRQs off)"),
    "smp_call_function_single": ((1,), "IPI function (hardirq, IRQs off)"),
    "smp_call_function": ((0,), "IPI function (hardirq, IRQs off)"),
    "stop_machine": ((0,), "stop_machine() function (IRQs off)"),
}
# Interrupt handler registrations: argument index of the primary handler
# and of the flags (None: the interrupt is never threaded). irqaction's
# thread_fn runs under local_bh_disable() when the handler is force-threaded
# (irq_forced_thread_fn(); on PREEMPT_RT without IRQs off), but
# irq_setup_forced_threading() leaves alone a handler requested with one of
# HARDIRQ_FLAGS, and a per-CPU or NMI handler is called from the flow
# handler only: hard interrupt context on PREEMPT_RT too. A function that
# passes its own parameters on to one of these is a registration as well.
IRQ_REGISTRATIONS = {
    "request_threaded_irq": (1, 3), "request_irq": (1, 2),
    "request_any_context_irq": (1, 2),
    "devm_request_threaded_irq": (2, 4), "devm_request_irq": (2, 3),
    "devm_request_any_context_irq": (2, 3),
    "request_percpu_irq": (1, None), "__request_percpu_irq": (1, None),
    "request_nmi": (1, None), "request_percpu_nmi": (1, None),
}
HARDIRQ_FLAGS = re.compile(r"\bIRQF_(?:PERCPU|NO_THREAD|TIMER|ONESHOT)\b")
# Notifier registrations whose chain is called from process context:
# argument index of the notifier_block.
PROCESS_NOTIFIERS = {
    "register_netdevice_notifier": 0, "register_netdevice_notifier_net": 1,
    "register_netdevice_notifier_dev_net": 1, "register_inetaddr_notifier": 0,
    "register_reboot_notifier": 0, "register_module_notifier": 0,
    "register_pm_notifier": 0, "register_netlink_notifier": 0,
    "register_switchdev_blocking_notifier": 0, "register_fib_notifier": 1,
    "register_nexthop_notifier": 1, "blocking_notifier_chain_register": 1,
}
# Notifier chains whose callbacks never run in BH context, by head
# (irqctx.py): a call of the chain is no softirq edge, the callbacks
# registered on it are roots.  panic() calls its chain after
# local_irq_disable() and smp_send_stop().
CHAIN_CONTEXTS = {
    "panic_notifier_list": "panic notifier (panic(): IRQs off, the other CPUs stopped)",
}
CHAIN_CALLS = re.compile(r"^(?:atomic|blocking|raw|srcu)_notifier_call_chain(?:_robust)?$")
CHAIN_REGISTER = re.compile(r"^(?:atomic|blocking|raw|srcu)_notifier_chain_(?:cond_)?register$")
# File-scope initcall macros and DECLARE_*WORK (cfacts.top_process()).
TOP_PROCESS_REASON = {"DECLARE_WORK": _WORK, "DECLARE_DELAYED_WORK": _WORK,
                      "DECLARE_DEFERRABLE_WORK": _WORK}
SYSCALL = re.compile(r"^(?:COMPAT_)?SYSCALL_DEFINE\d$")
# Bound of the backward search from one function: a region larger than
# this is not proven.
MAX_ROOT_REGION = 20000
# Root chains kept per access in the report (the count is kept too).
MAX_ROOT_CHAINS = 8
# Functions outside the audited files that call the function they are
# given before returning (its caller's context is the callback's).
SYNC_CALLBACKS = {"NF_HOOK", "NF_HOOK_COND", "NF_HOOK_LIST", "nf_hook", "nf_hook_slow",
                  "list_sort", "sort", "sort_r", "bsearch", "idr_for_each"}

# --- protection -------------------------------------------------------------

# raw spinlocks that disable IRQs also on PREEMPT_RT (spin_lock_irqsave()
# does not: it is a sleeping lock there).
RAW_IRQ_LOCK = {"raw_spin_lock_irqsave", "raw_spin_lock_irq", "raw_read_lock_irqsave",
                "raw_write_lock_irqsave", "raw_spin_lock_irqsave_nested"}
RAW_IRQ_UNLOCK = {"raw_spin_unlock_irqrestore", "raw_spin_unlock_irq",
                  "raw_read_unlock_irqrestore", "raw_write_unlock_irqrestore"}


def trylock(name):
    """spin_trylock() and co: the code after a successful try holds it."""
    return "trylock" in name and "unlock" not in name and not name.startswith("local_")


# Locks that sleep on PREEMPT_RT: taken inside a preempt_disable()
# section they are a bug there (and the section needs another lock).
# Calls after which the task may have been preempted: the end of a
# BH-disabled, preempt-disabled or IRQs-off section, a lock that sleeps on
# PREEMPT_RT, a call that sleeps.
SLEEPS = {"schedule", "cond_resched", "might_sleep", "msleep", "usleep_range", "ssleep",
          "synchronize_rcu", "synchronize_net", "wait_for_completion", "flush_work",
          "cancel_work_sync", "rtnl_lock"}


def preemption_point(name):
    return (name in SLEEPS or bh_off(name) or name in PREEMPT_OFF or name in IRQ_OFF
            or name in LOCAL_OFF or name in NESTED_OFF or sleeping_lock(name)
            or name.startswith("wait_event"))


def sleeping_lock(name):
    if name.startswith("raw_") or name.startswith("arch_") or "unlock" in name:
        return False
    return (re.match(r"^(?:spin_lock|spin_trylock|read_lock|write_lock|mutex_lock|down|"
                     r"down_read|down_write|local_lock|rt_mutex_lock)\w*$", name) is not None
            and "init" not in name and "held" not in name)


# Operations on one member that are single IRQ-safe operations: local64
# (u64_stats_t on 64-bit; on 32-bit PREEMPT_RT u64_stats_update_begin()
# disables preemption), atomics, cmpxchg()/xchg().
ATOMIC_OPS = re.compile(r"^(?:u64_stats_(?:inc|add|sub|set|dec|read)|local64_\w+|local_(?:inc|dec|add|"
                        r"sub|read|set)\w*|atomic(?:64|_long)?_\w+|(?:try_)?cmpxchg\w*|xchg\w*|"
                        r"refcount_\w+|set_bit|clear_bit|test_and_set_bit|test_and_clear_bit|"
                        r"test_bit)$")
# Lock-free llist operations on a list head: llist_add*() is a cmpxchg()
# loop, llist_del_all() one xchg(), llist_empty() one load; each is safe
# against every other user of the head, another task of the CPU included.
# (llist_del_first() is not: it allows one consumer at a time.)  Name ->
# index of the head argument.
LOCKLESS_HEAD_OPS = {"llist_add": 1, "llist_add_batch": 2, "llist_del_all": 0,
                     "llist_empty": 0, "__llist_empty": 0}
CMPXCHG = re.compile(r"^(?:try_)?cmpxchg\w*$|^xchg\w*$")
# Calls that only test what they are given (a peek): a result that is
# re-read under protection before it is relied on costs nothing.
PEEK_CALLS = {"skb_queue_empty", "skb_queue_empty_lockless", "list_empty", "list_empty_careful",
              "skb_queue_len", "skb_queue_len_lockless", "llist_empty", "hlist_empty",
              "READ_ONCE", "skb_peek"}
# Calls that synchronize the object they are given themselves (atomic
# bit operations on its state, its own lock): the address of a per-CPU
# member passed to them is no unprotected access.
SELF_SYNCED = {"schedule_work", "queue_work", "queue_work_on", "schedule_delayed_work",
               "mod_delayed_work", "tasklet_schedule", "tasklet_hi_schedule",
               "napi_schedule", "napi_schedule_irqoff", "__napi_schedule", "wake_up",
               "wake_up_process", "complete", "hrtimer_start", "mod_timer", "add_timer",
               "irq_work_queue", "llist_add", "smp_call_function_single_async"}
# Calls on a member that keep its synchronization state, not data:
# the u64_stats seqcount (a no-op on 64-bit, preemption off on 32-bit
# PREEMPT_RT).
SYNC_MEMBER_CALLS = {"u64_stats_update_begin", "u64_stats_update_end",
                     "u64_stats_update_begin_irqsave", "u64_stats_update_end_irqrestore",
                     "u64_stats_init"}
# container_of(x, struct T, member) that reaches the local CPU's copy of
# a per-CPU datum: the backlog NAPI of a softnet_data is scheduled and
# polled on its own CPU only (process_backlog()).
LOCAL_CONTAINERS = {("softnet_data", "backlog"): "softnet_data"}
LOCAL_CONTAINER_MEMBERS = {m for _, m in LOCAL_CONTAINERS}
