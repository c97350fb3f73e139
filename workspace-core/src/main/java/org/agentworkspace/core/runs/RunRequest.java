package org.agentworkspace.core.runs;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What to run.
 *
 * @param provider provider id ({@code claude}, {@code codex}, …; lower case letters, digits, {@code . _ -}); it picks
 *                 the per-provider concurrency limit
 * @param process  the process to start
 * @param parser   turns stdout lines into unified events ({@link LineParser#none()} for native lines only)
 * @param metadata a JSON object stored with the run (project path, session id, the route that started it …)
 * @param account  the account the run is charged to, for the per-account caps
 *                 ({@link RunSettings#maxQueuedPerAccount()}, {@link RunSettings#maxActivePerAccount()}); null: none
 * @param owner    the typed owner stored in the run row's columns (visibility, the session index, filters); null:
 *                 nobody's run ({@link RunOwner#NONE}) — the metadata is never read for ownership
 */
public record RunRequest(String provider, ProcessSpec process, LineParser parser, String metadata, String account,
                         RunOwner owner) {
    private static final Pattern PROVIDER = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");

    public RunRequest {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(process, "process");
        Objects.requireNonNull(parser, "parser");
        metadata = metadata == null ? "{}" : metadata;
        if (!PROVIDER.matcher(provider).matches()) {
            throw new IllegalArgumentException("provider ids are lower case letters, digits, '.', '_' and '-'");
        }
    }

    /** A run of no owner ({@link RunOwner#NONE}), charged to {@code account}. */
    public RunRequest(String provider, ProcessSpec process, LineParser parser, String metadata, String account) {
        this(provider, process, parser, metadata, account, null);
    }

    /** A run charged to no account. */
    public RunRequest(String provider, ProcessSpec process, LineParser parser, String metadata) {
        this(provider, process, parser, metadata, null);
    }

    public static RunRequest of(String provider, ProcessSpec process, LineParser parser) {
        return new RunRequest(provider, process, parser, "{}");
    }

    public RunRequest withMetadata(String json) {
        return new RunRequest(provider, process, parser, json, account, owner);
    }

    /** The same run charged to {@code id} (an account id). */
    public RunRequest withAccount(String id) {
        return new RunRequest(provider, process, parser, metadata, id, owner);
    }

    /** The same run with this typed owner. */
    public RunRequest withOwner(RunOwner o) {
        return new RunRequest(provider, process, parser, metadata, account, o);
    }
}
