package org.agentworkspace.providers.common;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.InteractiveLaunch;
import org.agentworkspace.api.provider.LaunchPlan;
import org.agentworkspace.api.provider.ProviderDescriptor;
import org.agentworkspace.api.provider.RunSpec;

/**
 * What every adapter's {@link #plan} shares: argument checks and the child environment. The environment is built in
 * layers, later ones winning: the context's allow-listed variables; the common headless switches
 * ({@code TERM=dumb}, {@code NO_COLOR}, {@code DO_NOT_TRACK}, {@code NO_UPDATE_NOTIFIER}) and PATH with the binary's
 * directory first; the adapter's own variables ({@link Plan#env}); the spec's extra variables.
 */
public abstract class ProviderBase implements AgentProvider {

    private final ProviderDescriptor descriptor;
    private final String id;
    private final String displayName;
    private final List<String> binaryNames;
    private final boolean supportsResume;

    /** The id and display name are the descriptor's. */
    protected ProviderBase(ProviderDescriptor descriptor, List<String> binaryNames, boolean supportsResume) {
        this.descriptor = Objects.requireNonNull(descriptor, "descriptor");
        this.id = descriptor.id();
        this.displayName = descriptor.displayName();
        this.binaryNames = List.copyOf(binaryNames);
        this.supportsResume = supportsResume;
    }

    @Override
    public final ProviderDescriptor descriptor() {
        return descriptor;
    }

    @Override
    public final String id() {
        return id;
    }

    @Override
    public final String displayName() {
        return displayName;
    }

    @Override
    public final List<String> binaryNames() {
        return binaryNames;
    }

    @Override
    public final boolean supportsResume() {
        return supportsResume;
    }

    @Override
    public final LaunchPlan plan(RunSpec spec, Path binary, LaunchContext ctx) {
        Plan p = check(spec, binary, ctx);
        build(spec, ctx, p);
        return assemble(spec, ctx, binary, p, true);
    }

    @Override
    public final Optional<InteractiveLaunch> planInteractive(RunSpec spec, Path binary, LaunchContext ctx) {
        Plan p = check(spec, binary, ctx);
        String first = buildInteractive(spec, ctx, p);
        if (first == null) {
            return Optional.empty();
        }
        return Optional.of(new InteractiveLaunch(assemble(spec, ctx, binary, p, false), first));
    }

    /**
     * Fills in an interactive launch (see {@link AgentProvider#planInteractive}) and returns the first stdin input;
     * {@code null} (the default) when the CLI has none.
     */
    protected String buildInteractive(RunSpec spec, LaunchContext ctx, Plan plan) {
        return null;
    }

    private Plan check(RunSpec spec, Path binary, LaunchContext ctx) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(binary, "binary");
        Objects.requireNonNull(ctx, "ctx");
        if (!binary.isAbsolute()) {
            throw new IllegalArgumentException("binary must be an absolute path");
        }
        if (spec.resumes() && !supportsResume) {
            throw WorkspaceException.Validation.of(displayName + " has no sessions to resume");
        }
        return new Plan(binary);
    }

    private LaunchPlan assemble(RunSpec spec, LaunchContext ctx, Path binary, Plan p, boolean stdinNull) {
        Map<String, String> env = new LinkedHashMap<>(ctx.baseEnv());
        env.put("PATH", withFirst(binary.getParent(), ctx.baseEnv().get("PATH")));
        env.put("TERM", "dumb");
        env.put("NO_COLOR", "1");
        env.put("DO_NOT_TRACK", "1");
        env.put("NO_UPDATE_NOTIFIER", "1");
        env.putAll(p.env);
        env.putAll(spec.extraEnv());
        Set<String> secrets = new LinkedHashSet<>(p.secretEnv);
        return new LaunchPlan(p.argv, env, spec.projectDir(), stdinNull, p.files, secrets);
    }

    /** Fills in argv (after the binary), the adapter's variables and files. */
    protected abstract void build(RunSpec spec, LaunchContext ctx, Plan plan);

    private static String withFirst(Path dir, String path) {
        String first = dir == null ? null : dir.toString();
        if (path == null || path.isEmpty()) {
            return first == null ? "/usr/local/bin:/usr/bin:/bin" : first + ":/usr/local/bin:/usr/bin:/bin";
        }
        if (first == null) {
            return path;
        }
        List<String> entries = new ArrayList<>();
        entries.add(first);
        for (String e : path.split(":")) {
            if (!e.equals(first)) {
                entries.add(e);
            }
        }
        return String.join(":", entries);
    }

    /** The plan under construction. */
    public static final class Plan {
        final List<String> argv = new ArrayList<>();
        final Map<String, String> env = new LinkedHashMap<>();
        final Map<Path, String> files = new LinkedHashMap<>();
        final Set<String> secretEnv = new LinkedHashSet<>();

        Plan(Path binary) {
            argv.add(binary.toString());
        }

        /** Appends arguments. */
        public Plan args(String... values) {
            argv.addAll(List.of(values));
            return this;
        }

        /** {@code --name=value}: the value can never be read as an option of its own. */
        public Plan option(String name, String value) {
            argv.add(name + "=" + value);
            return this;
        }

        /** Sets a variable of the child's environment. */
        public Plan env(String name, String value) {
            env.put(name, value);
            return this;
        }

        /** Sets a variable whose value is a secret (never logged). */
        public Plan secretEnv(String name, String value) {
            env.put(name, value);
            secretEnv.add(name);
            return this;
        }

        /** A config file the launcher writes before the start. */
        public Plan file(Path path, String content) {
            files.put(path, content);
            return this;
        }
    }
}
