package org.agentworkspace.core.shell;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.pty4j.PtyProcess;
import com.pty4j.WinSize;

import org.agentworkspace.core.process.Spawner;

/** A process on a pseudo-terminal (started by the {@link Spawner}). */
final class Pty {
    private final PtyProcess process;

    private Pty(PtyProcess process) {
        this.process = process;
    }

    static Pty start(List<String> argv, Path cwd, Map<String, String> env, int cols, int rows) throws IOException {
        return new Pty(Spawner.startPty(argv, env, cwd, cols, rows));
    }

    InputStream output() {
        return process.getInputStream();
    }

    OutputStream input() {
        return process.getOutputStream();
    }

    void resize(int cols, int rows) {
        process.setWinSize(new WinSize(cols, rows));
    }

    long pid() {
        return process.pid();
    }

    /** The handle of the process, for its descendants (pty4j's process has no {@code toHandle()}). */
    java.util.Optional<ProcessHandle> handle() {
        return ProcessHandle.of(process.pid());
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the exit; returns the exit code, or -1 when it did not end in time. */
    int waitFor(long millis) throws InterruptedException {
        return process.waitFor(millis, TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    }

    /** SIGKILL; an interactive shell ignores SIGTERM. */
    void kill() {
        process.destroyForcibly();
    }
}
