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
# Macros that call their second..last function argument, first is the pointer.
INDIRECT_CALL = re.compile(r"^INDIRECT_CALL_(\d|INET|INET4)$")
