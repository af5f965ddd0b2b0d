/// The Python program that runs a ``TestPatroniCluster`` (Debian's `patroni` is Python; this is
/// the standard library only), written into the cluster's folder and started with
/// `/usr/bin/python3 supervisor.py FOLDER`:
///
/// - it switches to the `postgres` user when started as root (PostgreSQL refuses root);
/// - it closes every descriptor it inherited above 2, so no process of the cluster holds a
///   pipe of the test process;
/// - it becomes a child subreaper (`PR_SET_CHILD_SUBREAPER`): a postmaster whose Patroni was
///   killed is reparented to it and reaped, where a container's PID 1 may leave it a zombie
///   that Patroni then waits on forever;
/// - it starts etcd (`etcd.sh`) and one Patroni per `nodeN.yml`, then obeys one command a line
///   on its standard input, answering `ok` or `error …` a line on its standard output:
///   `start NAME` (Patroni of node NAME), `kill NAME` (SIGKILL to that Patroni only, its
///   postmaster lives on as an orphan), `stop NAME` (SIGTERM: Patroni stops its PostgreSQL,
///   then exits), each waiting for the process to be gone;
/// - at the end of its standard input (the test process closed it, or died however it died) it
///   SIGKILLs every process of the cluster (every descendant ends up its child, being the
///   subreaper) and removes the folder;
/// - its children start with no signal blocked and the usual ones at their default action,
///   whatever the test process blocked or ignored (a Patroni that never sees SIGTERM cannot stop).
enum PatroniSupervisor {
    static let program = #"""
import ctypes, os, pwd, signal, sys, shutil, threading, time

folder = sys.argv[1]
os.closerange(3, 65536)
# The test process may block or ignore signals (its threads' masks are inherited): Patroni
# must see SIGTERM, so the cluster starts with none blocked and the usual ones at default.
signal.pthread_sigmask(signal.SIG_SETMASK, [])
defaults = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGPIPE, signal.SIGUSR1, signal.SIGUSR2, signal.SIGCHLD)
if os.geteuid() == 0:
    account = pwd.getpwnam("postgres")
    os.setgid(account.pw_gid)
    os.initgroups("postgres", account.pw_gid)
    os.setuid(account.pw_uid)
os.environ["HOME"] = folder
os.environ["USER"] = "postgres"
os.environ.pop("PGHOST", None)
os.environ.pop("PGPORT", None)
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER

children = {}
lock = threading.Lock()
stopping = False

def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, 0)
        except ChildProcessError:
            time.sleep(0.05)
            continue
        with lock:
            for name, process in list(children.items()):
                if process == pid:
                    del children[name]

def launch(name, command):
    log = open(os.path.join(folder, name + ".log"), "ab")
    pid = os.posix_spawn(command[0], command, os.environ, setsigmask=[], setsigdef=defaults, file_actions=[
        (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
        (os.POSIX_SPAWN_DUP2, log.fileno(), 1), (os.POSIX_SPAWN_DUP2, log.fileno(), 2)])
    log.close()
    with lock:
        children[name] = pid

def my_children():
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            if int(fields[1]) == os.getpid():
                found.append(int(entry))
        except (OSError, IndexError, ValueError):
            pass
    return found

def kill_everything():
    quiet = 0
    while quiet < 5:
        found = my_children()
        quiet = 0 if found else quiet + 1
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.1)

def wait_gone(name):
    deadline = time.time() + 60
    while time.time() < deadline:
        with lock:
            if name not in children:
                return
        time.sleep(0.05)
    raise Exception(name + " did not exit within 60 s")

threading.Thread(target=reap, daemon=True).start()
launch("etcd", ["/bin/sh", os.path.join(folder, "etcd.sh")])
nodes = sorted(n[:-4] for n in os.listdir(folder) if n.startswith("node") and n.endswith(".yml"))
for node in nodes:
    launch(node, ["/usr/bin/patroni", os.path.join(folder, node + ".yml")])
print("ok", flush=True)
for line in sys.stdin:
    words = line.split()
    try:
        if len(words) != 2 or words[1] not in nodes:
            raise Exception("unknown command: " + line.strip())
        if words[0] == "start":
            with lock:
                running = words[1] in children
            if running:
                raise Exception(words[1] + " runs already")
            launch(words[1], ["/usr/bin/patroni", os.path.join(folder, words[1] + ".yml")])
        elif words[0] in ("kill", "stop"):
            with lock:
                pid = children.get(words[1])
            if pid is None:
                raise Exception(words[1] + " does not run")
            os.kill(pid, signal.SIGKILL if words[0] == "kill" else signal.SIGTERM)
            wait_gone(words[1])
        else:
            raise Exception("unknown command: " + line.strip())
        print("ok", flush=True)
    except Exception as error:
        print("error", error, flush=True)
kill_everything()
shutil.rmtree(folder, ignore_errors=True)
"""#
}
