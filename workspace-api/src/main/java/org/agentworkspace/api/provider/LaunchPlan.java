package org.agentworkspace.api.provider;

import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Exactly how to start one run; the engine's launcher executes it and nothing else. The launcher writes
 * {@link #files()} first (creating parent directories; the contents never hold a secret), then starts {@code argv}
 * (no shell) in {@link #workingDir()} with <em>exactly</em> {@link #env()} as the environment (it must clear the
 * inherited one), and with stdin on {@code /dev/null} when {@link #stdinNull()}.
 *
 * @param argv the absolute binary, then the arguments; the prompt is always data, never an option
 * @param env the complete child environment
 * @param workingDir the project directory
 * @param stdinNull give the child {@code /dev/null} as stdin (codex reads stdin to EOF otherwise)
 * @param files config files to write before the start, absolute path to content
 * @param secretEnv names in {@link #env()} whose values are secrets: never log them
 */
public record LaunchPlan(List<String> argv, Map<String, String> env, Path workingDir, boolean stdinNull,
        Map<Path, String> files, Set<String> secretEnv) {

    public LaunchPlan {
        argv = List.copyOf(argv);
        if (argv.isEmpty() || !Path.of(argv.get(0)).isAbsolute()) {
            throw new IllegalArgumentException("argv must start with an absolute binary path");
        }
        env = Collections.unmodifiableMap(new TreeMap<>(env));
        Objects.requireNonNull(workingDir, "workingDir");
        files = Collections.unmodifiableMap(new TreeMap<>(files));
        files.keySet().forEach(p -> {
            if (!p.isAbsolute()) {
                throw new IllegalArgumentException("file paths must be absolute: " + p);
            }
        });
        secretEnv = Collections.unmodifiableSet(new TreeSet<>(secretEnv));
    }

    /** The environment with secret values replaced by {@code ***}, for logs. */
    public Map<String, String> redactedEnv() {
        TreeMap<String, String> copy = new TreeMap<>(env);
        secretEnv.forEach(k -> copy.computeIfPresent(k, (key, v) -> "***"));
        return Collections.unmodifiableMap(copy);
    }

    @Override
    public String toString() {
        return "LaunchPlan[argv=" + argv + ", env=" + redactedEnv() + ", workingDir=" + workingDir + ", stdinNull="
                + stdinNull + ", files=" + files.keySet() + "]";
    }
}
