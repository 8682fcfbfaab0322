"""The Python host of test/bench/tap-cost.mjs: real pipes on the host's side
(subprocess.PIPE). One argument, JSON: frame (bytes of the one line), runs, pairs, messages, and
the command lines of the servers, direct and through the tap ('big': one 64 MiB line at once;
'settled': the same when asked, after 'ready', by mode: direct, tap, and floor where it was
built; 'echo': answers each request). Prints the throughput runs and the latency figures as
JSON."""
import json, os, subprocess, sys, time
cfg = json.loads(sys.argv[1])
FRAME = cfg['frame']
procs = []

def popen(cmd):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, bufsize=0)
    procs.append(p)
    return p

def end(p):
    p.stdin.close()
    try:
        p.wait(timeout=8)
    except subprocess.TimeoutExpired:
        p.kill(); p.wait()

def host_end(p):
    return os.readlink('/proc/self/fd/%d' % p.stdout.fileno()).split(':')[0]

def read_frame(p):
    """The one line, read as a host does (1 MiB at a time): the times of its first byte and
    its last."""
    buf = memoryview(bytearray(1 << 20))
    fd = p.stdout.fileno()
    got, first = 0, None
    while got < FRAME:
        k = os.readv(fd, [buf])
        if k == 0:
            break
        if first is None:
            first = time.perf_counter()
        got += k
    last = time.perf_counter()
    if got != FRAME:
        raise SystemExit('got %d bytes' % got)
    return first, last

def throughput(cmd):
    t0 = time.perf_counter()
    p = popen(cmd)
    first, last = read_frame(p)
    kind = host_end(p)
    end(p)
    return {'firstToLastMs': (last - first) * 1e3, 'spawnToLastMs': (last - t0) * 1e3, 'hostEnd': kind}

def cpu_ticks(pid):
    """The process's CPU time, all its threads (utime + stime, as tap-proc.mjs's ticks):
    /proc/PID/schedstat is its main thread's alone, and the tap's observer loads in a worker."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            fields = f.read().rsplit(') ', 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None

def settled(cmd):
    """The 64 MiB line asked for once the process the host started has used no CPU for 100 ms
    (the tap's observer loaded): ms from its first byte to its last."""
    p = popen(cmd)
    fd = p.stdout.fileno()
    ready = b''
    while not ready.endswith(b'\n'):
        k = os.read(fd, 1)
        if not k:
            raise SystemExit('no ready line')
        ready += k
    last = cpu_ticks(p.pid)
    for _ in range(30):
        time.sleep(0.1)
        now = cpu_ticks(p.pid)
        if now is None or now == last:
            break
        last = now
    time.sleep(0.05)
    os.write(p.stdin.fileno(), b'{"jsonrpc":"2.0","id":1,"method":"tools/call"}\n')
    first, last = read_frame(p)
    end(p)
    return {'firstToLastMs': (last - first) * 1e3}

def latency(cmd, n, warm=200):
    p = popen(cmd)
    fin, fout = p.stdin.fileno(), p.stdout.fileno()
    pending = b''
    def ask(i):
        nonlocal pending
        msg = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"message %d"}}}\n' % (i, i)).encode()
        t = time.perf_counter()
        os.write(fin, msg)
        while b'\n' not in pending:
            pending += os.read(fout, 65536)
        ms = (time.perf_counter() - t) * 1e3
        pending = pending[pending.index(b'\n') + 1:]
        return ms
    ask(0)
    time.sleep(1)
    for i in range(1, warm + 1):
        ask(i)
    rtt = sorted(ask(warm + 1 + i) for i in range(n))
    end(p)
    pick = lambda q: rtt[min(len(rtt) - 1, -(-q * len(rtt) // 100) - 1)]
    return {'p50': pick(50), 'p99': pick(99), 'max': rtt[-1]}

try:
    out = {'throughput': {'direct': [], 'tap': []}, 'latency': {},
           'settled': {mode: [] for mode in cfg['settled']}}
    for _ in range(cfg['runs']):
        for mode in ('direct', 'tap'):
            out['throughput'][mode].append(throughput(cfg['big'][mode]))
    for _ in range(cfg['pairs']):
        for mode, cmd in cfg['settled'].items():
            out['settled'][mode].append(settled(cmd))
    for mode in ('direct', 'tap'):
        out['latency'][mode] = latency(cfg['echo'][mode], cfg['messages'])
    print(json.dumps(out))
finally:
    for p in procs:
        if p.poll() is None:
            p.kill()
