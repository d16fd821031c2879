"""devflow's pytest plugin for regression's runs of the whole suite, loaded with `-p` for one run.

Every test runs (ADR 0083): regression compares each test on base with the same test now, so a
run that stops at its first failure (`-x`, `--maxfail`, `--sw`, or code that sets the session's
`shouldstop`/`shouldfail` itself) would leave the tests after the stop without a result on base.
The seam's failing test usually is that first failure. The plugin undoes those options and ignores
those stops, for base's runs and the attempt's alike. A stop it cannot undo (`pytest.exit`) shows as
a run that had the canary scheduled (the mark file devflow names) and never reported it.

The canary (ADR 0079) fails on purpose, to show that code loaded into this process did not
neuter pytest's test call or its report. It runs last, after every test of the suite, so a
neutering installed while the suite ran is caught too. Its failure must not count as the suite's:
this plugin keeps it out of pytest's failure count (so out of the exit status) and undoes what the
stepwise plugin does on a failure, and while it runs `pytest.exit` does nothing. A failure of the
canary's setup or teardown still counts: it is the suite's. Also loaded, without a canary, into
regression's console runs of pytest (devflow's console-run.ts).
"""

import os

import _pytest.outcomes as _pytest_outcomes
import pytest

_CANARY_FILES = frozenset(filter(None, os.environ.get("DEVFLOW_CANARY_FILES", "").split(os.pathsep)))
_SCHEDULED_MARK = os.environ.get("DEVFLOW_CANARY_SCHEDULED")
_session = []


def _in_canary_file(nodeid):
    return nodeid.split("::", 1)[0].rsplit("/", 1)[-1] in _CANARY_FILES


def _is_canary_failure(report):
    if report.when != "call" or not report.failed or hasattr(report, "wasxfail"):
        return False
    return _in_canary_file(report.nodeid)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    # Before the stepwise plugin's own pytest_configure, which registers it when asked for; and
    # before pytest-xdist's controller reads maxfail. pytest reads maxfail at each report.
    config.option.maxfail = 0
    for name in ("stepwise", "stepwise_skip", "stepwise_reset"):
        if getattr(config.option, name, False):
            setattr(config.option, name, False)


def _never(_session):
    return False


def _ignored(_session, _value):
    pass


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    _session.append(session)
    # pytest's run loop ends the run when `session.shouldstop` or `shouldfail` is set. maxfail is 0
    # and stepwise is off, so pytest itself asks for neither here; any request comes from the
    # project's (or the attempt's) own code, wherever it sets it: a report hook, or a
    # `pytest_runtest_protocol` wrapper, which pluggy may call outside any wrapper of devflow's
    # (review, stop 45). The session's class becomes a subclass on which both always read False and
    # writes are dropped, for the whole run. Same layout (no new slots), same name, still a Session.
    cls = type(session)
    flags = {"__slots__": (), "shouldstop": property(_never, _ignored), "shouldfail": property(_never, _ignored)}
    try:
        session.__class__ = type(cls.__name__, (cls,), flags)
    except TypeError:
        pass  # a Session this cannot subclass: the protocol wrapper below still takes back most stops


def _unset_stop(session, name):
    # pytest 8+ guards the public setter (it refuses to unset a stop once set); older ones have none.
    if hasattr(session, "_" + name):
        setattr(session, "_" + name, False)
    else:
        setattr(session, name, False)


def _exit_ignored(reason="", returncode=None):
    pass


_exit_ignored.Exception = _pytest_outcomes.Exit


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    # The canary fails on purpose. A project hook that calls `pytest.exit` on any failure (an honest
    # "stop at the first failure") would end the run inside the canary's own report, so the report
    # would never name it and every correct fix would look cut short (review, stop 45, attack 48).
    # While the canary runs, last, `pytest.exit` does nothing.
    canary = _in_canary_file(item.nodeid)
    if canary:
        saved = (pytest.exit, _pytest_outcomes.exit)
        pytest.exit = _pytest_outcomes.exit = _exit_ignored
    try:
        yield
    finally:
        if canary:
            pytest.exit, _pytest_outcomes.exit = saved
    # Only where the session's class could not be swapped: a stop asked for inside the test's
    # protocol is taken back before the run loop sees it.
    for name in ("shouldfail", "shouldstop"):
        if getattr(item.session, name, False):
            _unset_stop(item.session, name)


@pytest.hookimpl(hookwrapper=True)
def pytest_collection_modifyitems(items):
    # After every other plugin's reordering and deselection (a wrapper resumes after them all).
    yield
    canaries = [i for i in items if _in_canary_file(i.nodeid)]
    if canaries:
        items[:] = [i for i in items if i not in canaries] + canaries
        # Said to devflow: the canary is among the tests this run will run, last. Missing from the
        # report then means the run stopped before its end (`pytest.exit` in the project's code),
        # not that pytest did not collect it here (ADR 0083, stop 45).
        if _SCHEDULED_MARK:
            with open(_SCHEDULED_MARK, "w") as mark:
                mark.write("scheduled\n")


def _stepwise_state(session):
    plugin = session.config.pluginmanager.get_plugin("stepwiseplugin")
    info = getattr(plugin, "cached_info", None)
    return (
        plugin,
        getattr(plugin, "skip", None),
        getattr(plugin, "lastfailed", None),
        getattr(info, "last_failed", None),
    )


def _restore_stepwise(state):
    plugin, skip, lastfailed, last_failed = state
    if plugin is None:
        return
    if hasattr(plugin, "skip"):
        plugin.skip = skip
    if hasattr(plugin, "lastfailed"):
        plugin.lastfailed = lastfailed
    info = getattr(plugin, "cached_info", None)
    if info is not None and hasattr(info, "last_failed"):
        info.last_failed = last_failed


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_logreport(report):
    session = _session[0] if _session and _is_canary_failure(report) else None
    if session is None:
        yield
        return
    # pytest counts the failure (and checks --maxfail) inside this hook, and refuses to unset a stop
    # once set: taking one off first leaves the count, and the decision, as if the canary passed.
    session.testsfailed -= 1
    stop = session.shouldstop
    stepwise = _stepwise_state(session)
    yield
    # `--sw-skip` forgives one failure: the canary's must not use it up, nor be the one recorded.
    _restore_stepwise(stepwise)
    if session.shouldstop and not stop:
        # The stepwise plugin asks to stop on any failure.
        _unset_stop(session, "shouldstop")
