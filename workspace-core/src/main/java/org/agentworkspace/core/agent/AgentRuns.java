package org.agentworkspace.core.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.api.provider.AgentEvent;
import org.agentworkspace.api.provider.AgentProvider;
import org.agentworkspace.api.provider.AgentProviders;
import org.agentworkspace.api.provider.BinaryLocator;
import org.agentworkspace.api.provider.InteractiveLaunch;
import org.agentworkspace.api.provider.LaunchContext;
import org.agentworkspace.api.provider.LaunchPlan;
import org.agentworkspace.api.provider.PermissionMode;
import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.api.provider.RunSpec;
import org.agentworkspace.api.provider.StreamParser;
import org.agentworkspace.core.runs.EntryKind;
import org.agentworkspace.core.runs.LineParser;
import org.agentworkspace.core.runs.ProcessSpec;
import org.agentworkspace.core.runs.RunCursor;
import org.agentworkspace.core.runs.RunEngine;
import org.agentworkspace.core.runs.RunEntry;
import org.agentworkspace.core.runs.RunHandle;
import org.agentworkspace.core.runs.RunInfo;
import org.agentworkspace.core.runs.RunOutcome;
import org.agentworkspace.core.runs.RunRecord;
import org.agentworkspace.core.runs.RunTail;
import org.agentworkspace.core.runs.RunRequest;
import org.agentworkspace.core.providers.ProviderCredentialStore;
import org.agentworkspace.core.json.JsonMappers;

/**
 * Starts provider CLIs through the run engine: finds the binary through the provider SPI, builds the launch plan
 * (non-interactive permission mode, the credential of the run's account from {@link ProviderCredentialsSource}:
 * the account's own key, else the service key, else none), writes the plan's config
 * files, and hands the process to {@link RunEngine} with the provider's stream parser as the run's
 * {@link LineParser}, so the log holds the native lines and the unified events side by side.
 */
public final class AgentRuns {
    private static final System.Logger LOG = System.getLogger(AgentRuns.class.getName());
    /** Most log lines a run summary carries. */
    public static final int MAX_LOG_LINES = 100;
    /** Longest log line in a summary; longer ones are cut. */
    public static final int MAX_LOG_LINE_CHARS = 2000;

    private final RunEngine engine;
    private final AgentProviders providers;
    private final Path dataDir;
    private final Map<String, String> serverEnv;
    private final AgentSettings settings;
    private final ProviderCredentialsSource credentials;
    /** The key each recent run was started with, for {@link #redact}; bounded, oldest first out. */
    private final Map<String, java.util.Set<String>> runKeys = java.util.Collections.synchronizedMap(
            new java.util.LinkedHashMap<>(64, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, java.util.Set<String>> eldest) {
                    return size() > 10_000;
                }
            });
    private final ObjectMapper mapper = JsonMappers.shared();
    private final EventJson events = new EventJson(mapper);
    private final PermissionRequests permissions;

    private AgentRuns(RunEngine engine, AgentProviders providers, Path dataDir, Map<String, String> serverEnv,
                      AgentSettings settings, ProviderCredentialsSource store) {
        this.engine = engine;
        this.permissions = new PermissionRequests(engine, mapper, java.time.Clock.systemUTC());
        this.providers = providers;
        this.dataDir = dataDir;
        this.serverEnv = Map.copyOf(serverEnv);
        this.settings = settings;
        this.credentials = settings.credentials() != null ? settings.credentials()
                : store != null ? store : ProviderCredentialsSource.none();
    }

    /**
     * @param serverEnv the server's environment; only the variables of {@link LaunchContext#INHERITED_VARIABLES}
     *                  reach a child
     */
    public static AgentRuns create(RunEngine engine, AgentProviders providers, Path dataDir,
                                   Map<String, String> serverEnv, AgentSettings settings) {
        return create(engine, providers, dataDir, serverEnv, settings, null);
    }

    /**
     * @param serverEnv the server's environment; only the variables of {@link LaunchContext#INHERITED_VARIABLES}
     *                  reach a child
     * @param store     the engine's provider credentials (the account's own key, then the service key), used
     *                  unless {@link AgentSettings#credentials()} names another source; null for none
     */
    public static AgentRuns create(RunEngine engine, AgentProviders providers, Path dataDir,
                                   Map<String, String> serverEnv, AgentSettings settings,
                                   ProviderCredentialsSource store) {
        return new AgentRuns(Objects.requireNonNull(engine), Objects.requireNonNull(providers),
                dataDir.toAbsolutePath().normalize(), serverEnv, Objects.requireNonNull(settings), store);
    }

    /** Where runs get their provider credential: the engine's store unless the settings name another source. */
    public ProviderCredentialsSource credentials() {
        return credentials;
    }

    public AgentSettings settings() {
        return settings;
    }

    public RunEngine engine() {
        return engine;
    }

    /** The open tool-permission requests of interactive runs. */
    public PermissionRequests permissions() {
        return permissions;
    }

    /** The provider with this id; 400 {@code UNKNOWN_PROVIDER} otherwise. */
    public AgentProvider provider(String id) {
        return providers.find(id).orElseThrow(() -> new WorkspaceException.Validation(
                AgentErrorCodes.UNKNOWN_PROVIDER, "unknown provider '" + printable(id) + "'; known: "
                + String.join(", ", providers.ids())));
    }

    public List<String> providerIds() {
        return providers.ids();
    }

    /**
     * Where the engine's provider management resolves binaries (the status route's rule), when this launcher was
     * built by the engine; {@code null} for a launcher built on its own (tests, embedders), which uses its settings.
     */
    private volatile java.util.function.Function<String, Optional<Path>> resolver;

    /** Resolves binaries as this function does (the engine passes its provider management's {@code resolveBinary}). */
    public void useBinaryResolver(java.util.function.Function<String, Optional<Path>> resolver) {
        this.resolver = resolver;
    }

    /** The provider's binary on this host, if any. */
    public Optional<Path> findBinary(AgentProvider provider) {
        java.util.function.Function<String, Optional<Path>> r = resolver;
        if (r != null) {
            return r.apply(provider.id());
        }
        Path configured = settings.binaries().getOrDefault(provider.id(), settings.binaries().get("*"));
        BinaryLocator locator = configured != null
                ? new BinaryLocator(null, List.of(), configured)
                : BinaryLocator.create(dataDir, serverEnv.get("PATH"), null);
        return provider.resolveBinary(locator);
    }

    /**
     * Starts a run (it may wait in the engine's queue).
     *
     * @throws WorkspaceException.Validation  unknown provider, or a prompt/model/session id the spec refuses
     * @throws WorkspaceException.Unavailable the provider's CLI is not installed ({@code PROVIDER_NOT_INSTALLED})
     */
    public RunHandle start(AgentRunRequest request) {
        return start0(request, null);
    }

    /**
     * As {@link #start(AgentRunRequest)}, writing {@code along}'s rows in the transaction that stores the run (both
     * or neither; see {@link RunEngine#start(RunRequest, org.agentworkspace.core.runs.WithRun)}).
     */
    public RunHandle start(AgentRunRequest request, org.agentworkspace.core.runs.WithRun along) {
        return start0(request, along);
    }

    /** What a caller is told when a provider's CLI is missing: how to get it, from the API or on the host. */
    static String notInstalled(String id) {
        return "the " + id + " CLI is not installed on this host: install it from the API with POST /api/providers/"
                + id + "/install (a signed-in session, e.g. the administrator's; GET /api/providers/" + id
                + "/auth/status then shows installed: true), or put its command on the service's PATH and retry";
    }

    private RunHandle start0(AgentRunRequest request, org.agentworkspace.core.runs.WithRun along) {
        Prepared p = prepare(request);
        RunHandle handle = engine.start(p.run(), along);
        runKeys.put(handle.id(), p.keys());
        LOG.log(System.Logger.Level.DEBUG, () -> "run " + handle.id() + " started: " + p.plan());
        return handle;
    }

    /**
     * The engine request of run {@code runId}, queued by a node that died, rebuilt on this node to take it over
     * ({@link org.agentworkspace.core.runs.RunTakeover}): the same checks, credential (resolved again by account) and launch plan as a
     * start.
     */
    RunRequest takeOver(String runId, AgentRunRequest request) {
        Prepared p = prepare(request);
        runKeys.put(runId, p.keys());
        return p.run();
    }

    private record Prepared(RunRequest run, java.util.Set<String> keys, LaunchPlan plan) { }

    private Prepared prepare(AgentRunRequest request) {
        AgentProvider provider = provider(request.provider());
        if (request.resumeSessionId() != null && !provider.supportsResume()) {
            throw WorkspaceException.Validation.of(provider.id() + " cannot resume sessions");
        }
        if (!Files.isDirectory(request.projectDir())) {
            throw new WorkspaceException.Validation(AgentErrorCodes.INVALID_PROJECT_PATH,
                    "the project directory does not exist");
        }
        Path binary = findBinary(provider).orElseThrow(() -> new WorkspaceException.Unavailable(
                AgentErrorCodes.PROVIDER_NOT_INSTALLED, notInstalled(provider.id()), null));
        PermissionMode mode = request.permissionMode() != null ? request.permissionMode() : settings.permissionMode();
        // the one place a run's credential is chosen: the account's own key, else the service key, else none
        ProviderCredentialStore.Resolved credential = credentials.resolve(provider.id(), request.accountId());
        RunSpec.Builder spec = RunSpec.builder(request.prompt(), request.projectDir())
                .model(request.model())
                .permissionMode(mode)
                .resume(request.resumeSessionId())
                .credentials(credential.credentials());
        settings.providerEnv().getOrDefault("*", Map.of()).forEach(spec::extraEnv);
        settings.providerEnv().getOrDefault(provider.id(), Map.of()).forEach(spec::extraEnv);
        RunSpec runSpec = spec.build();
        LaunchContext ctx = LaunchContext.create(dataDir, serverEnv);
        Optional<InteractiveLaunch> interactive = mode == PermissionMode.DEFAULT
                ? provider.planInteractive(runSpec, binary, ctx) : Optional.empty();
        LaunchPlan plan = interactive.map(InteractiveLaunch::plan).orElseGet(() -> provider.plan(runSpec, binary, ctx));
        writeFiles(plan);
        ObjectNode meta = mapper.createObjectNode();
        meta.put("projectPath", request.projectDir().toString());
        meta.put("model", request.model());
        meta.put("resumeSessionId", request.resumeSessionId());
        meta.put("permissionMode", mode.wireId());
        meta.put("interactive", interactive.isPresent());
        request.metadata().forEach((k, v) -> meta.set(k, mapper.valueToTree(v)));
        if (request.accountId() != null) {
            meta.put("accountId", request.accountId());
        }
        meta.put("credentialSource", credential.source().wire());
        ProcessSpec process = ProcessSpec.of(plan.argv(), plan.env(), plan.workingDir());
        LineParser parser;
        if (interactive.isPresent()) {
            process = process.interactive(interactive.get().firstInput());
            parser = new InteractiveBridge(provider.newParser());
        } else {
            parser = new Bridge(provider.newParser());
        }
        // the engine's per-account caps count the run's account (the caller; a task's owner)
        Long account = request.accountId();
        return new Prepared(new RunRequest(provider.id(), process, parser, meta.toString(),
                account == null ? null : account.toString(), request.owner()),
                credential.credentials().hasApiKey()
                        ? java.util.Set.of(credential.credentials().apiKey()) : java.util.Set.of(), plan);
    }

    private static void writeFiles(LaunchPlan plan) {
        try {
            for (Map.Entry<Path, String> f : plan.files().entrySet()) {
                Files.createDirectories(f.getKey().getParent());
                Files.writeString(f.getKey(), f.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the provider's config files", e);
        }
    }

    /** The stored run's metadata as a JSON object. */
    public JsonNode metadata(RunInfo info) {
        try {
            return mapper.readTree(info.metadata());
        } catch (IOException e) {
            return mapper.createObjectNode();
        }
    }

    /**
     * Removes the key the run was started with from a text that is about to leave the server (logs, native lines).
     * A run started before this process (so its key is not remembered) has its account's own key and the
     * provider's service key removed, whichever exist now.
     */
    public String redact(String runId, String provider, String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        java.util.Set<String> keys = runKeys.get(runId);
        if (keys == null) {
            keys = keysOf(runId, provider);
            runKeys.put(runId, keys);
        }
        String out = text;
        for (String k : keys) {
            if (out.contains(k)) {
                out = out.replace(k, "***");
            }
        }
        return out;
    }

    /** As {@link #redact(String, String, String)} for a stored run. */
    public String redact(RunInfo info, String text) {
        return redact(info.id(), info.provider(), text);
    }

    private java.util.Set<String> keysOf(String runId, String provider) {
        java.util.Set<String> keys = new java.util.HashSet<>();
        Long account = engine.find(runId).map(i -> metadata(i).path("accountId"))
                .filter(JsonNode::isIntegralNumber).map(JsonNode::asLong).orElse(null);
        try {
            ProviderCredentials own = credentials.resolve(provider, account).credentials();
            if (own.hasApiKey()) {
                keys.add(own.apiKey());
            }
            ProviderCredentials service = credentials.resolve(provider, null).credentials();
            if (service.hasApiKey()) {
                keys.add(service.apiKey());
            }
        } catch (WorkspaceException e) {
            // an unreadable stored key cannot have reached a run started with it being readable
        }
        return java.util.Set.copyOf(keys);
    }

    /**
     * Sums the run up from its row's stored outcome (written as its events arrived) and the end of its log (the
     * newest {@link #MAX_LOG_LINES} lines, read back from the end): the cost does not grow with the log. A run stored
     * before outcomes were kept is replayed once and its outcome stored. Reads what is committed now; a running run
     * gives a partial summary.
     */
    public RunSummary summary(RunInfo info) {
        return engine.record(info.id()).map(this::summary).orElseGet(() -> replay(info));
    }

    /** As {@link #summary(RunInfo)} for a row already read (a page of a listing). */
    public RunSummary summary(RunRecord record) {
        RunInfo info = record.info();
        RunOutcome o = record.outcome();
        if (o == null) {
            RunSummary replayed = replay(info);
            if (info.status().terminal()) {
                engine.storeOutcome(info.id(), outcomeOf(replayed));
            }
            return replayed;
        }
        RunTail tail = engine.tail(info.id(), MAX_LOG_LINES + 1);
        List<RunEntry> newestFirst = tail.lines();
        boolean truncated = newestFirst.size() > MAX_LOG_LINES;
        ArrayList<RunSummary.LogLine> logs = new ArrayList<>(Math.min(newestFirst.size(), MAX_LOG_LINES));
        for (int i = Math.min(newestFirst.size(), MAX_LOG_LINES) - 1; i >= 0; i--) {
            logs.add(logLine(info, newestFirst.get(i)));
        }
        String text = o.resultText() != null && !o.resultText().isBlank() ? o.resultText() : o.lastText();
        RunSummary.Usage usage = o.usage() == null ? null : new RunSummary.Usage(o.usage().input(),
                o.usage().output(), o.usage().cacheRead(), o.usage().cacheWrite(), o.usage().cost());
        RunSummary.ErrorInfo error = o.errorCode() == null ? null
                : new RunSummary.ErrorInfo(o.errorCode(), redact(info, o.errorMessage()));
        return new RunSummary(o.success(), o.sessionId(), text == null ? null : redact(info, text), usage, error,
                tail.lastSeq(), logs, truncated);
    }

    /** What a replayed summary says, as the outcome the row keeps (the text is kept as the result). */
    private static RunOutcome outcomeOf(RunSummary s) {
        RunOutcome.Usage u = s.usage() == null ? null : new RunOutcome.Usage(s.usage().input(), s.usage().output(),
                s.usage().cacheRead(), s.usage().cacheWrite(), s.usage().cost());
        return new RunOutcome(s.success(), s.sessionId(), s.text(), null, u,
                s.error() == null ? null : s.error().code(), s.error() == null ? null : s.error().message());
    }

    private RunSummary.LogLine logLine(RunInfo info, RunEntry e) {
        JsonNode p = parse(e.payload());
        String stream = e.kind() == EntryKind.NATIVE ? "stdout" : e.kind() == EntryKind.STDERR ? "stderr" : "system";
        String text = e.kind() == EntryKind.NATIVE || e.kind() == EntryKind.STDERR
                ? p.path("line").asText() : e.kind().wireName() + " " + e.payload();
        text = redact(info, text);
        if (text.length() > MAX_LOG_LINE_CHARS) {
            text = text.substring(0, MAX_LOG_LINE_CHARS) + "…";
        }
        return new RunSummary.LogLine(e.seq(), e.at(), stream, text);
    }

    /** Reads the run's whole stored log and sums it up: for runs stored before their outcome was kept. */
    private RunSummary replay(RunInfo info) {
        Boolean success = null;
        String sessionId = null;
        String resultText = null;
        String lastAssistant = null;
        RunSummary.Usage usage = null;
        RunSummary.ErrorInfo error = null;
        ArrayDeque<RunSummary.LogLine> logs = new ArrayDeque<>();
        boolean truncated = false;
        long last = 0;
        try (RunCursor cursor = engine.follow(info.id(), 0)) {
            while (true) {
                Optional<RunEntry> next = cursor.poll(Duration.ZERO);
                if (next.isEmpty()) {
                    break;
                }
                RunEntry e = next.get();
                last = e.seq();
                JsonNode p = parse(e.payload());
                switch (e.kind()) {
                    case EVENT -> {
                        JsonNode d = p.path("data");
                        switch (p.path("kind").asText()) {
                            case "session" -> sessionId = d.path("sessionId").asText(null);
                            case "text" -> {
                                if ("assistant".equals(d.path("role").asText())) {
                                    lastAssistant = d.path("text").asText();
                                }
                            }
                            case "usage" -> usage = new RunSummary.Usage(d.path("input").asLong(),
                                    d.path("output").asLong(), d.path("cacheRead").asLong(),
                                    d.path("cacheWrite").asLong(), d.path("cost").isNumber()
                                    ? d.path("cost").asDouble() : null);
                            case "error" -> {
                                if (error == null) {
                                    error = new RunSummary.ErrorInfo(d.path("code").asText(),
                                            redact(info, d.path("message").asText()));
                                }
                            }
                            case "completed" -> {
                                success = d.path("success").asBoolean();
                                if (d.hasNonNull("sessionId")) {
                                    sessionId = d.path("sessionId").asText();
                                }
                                resultText = d.path("resultText").asText(null);
                            }
                            default -> {
                            }
                        }
                    }
                    case NATIVE, STDERR, STATUS, TRUNCATED, PARSE_ERROR -> {
                        String stream = e.kind() == EntryKind.NATIVE ? "stdout"
                                : e.kind() == EntryKind.STDERR ? "stderr" : "system";
                        String text = e.kind() == EntryKind.NATIVE || e.kind() == EntryKind.STDERR
                                ? p.path("line").asText() : e.kind().wireName() + " " + e.payload();
                        text = redact(info, text);
                        if (text.length() > MAX_LOG_LINE_CHARS) {
                            text = text.substring(0, MAX_LOG_LINE_CHARS) + "…";
                        }
                        logs.addLast(new RunSummary.LogLine(e.seq(), e.at(), stream, text));
                        if (logs.size() > MAX_LOG_LINES) {
                            logs.removeFirst();
                            truncated = true;
                        }
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        String text = resultText != null && !resultText.isBlank() ? resultText : lastAssistant;
        return new RunSummary(success, sessionId, text == null ? null : redact(info, text), usage, error,
                last, new ArrayList<>(logs), truncated);
    }

    private JsonNode parse(String payload) {
        try {
            return mapper.readTree(payload);
        } catch (IOException e) {
            return mapper.createObjectNode();
        }
    }

    private static String printable(String s) {
        String cut = s.length() > 40 ? s.substring(0, 40) + "…" : s;
        return cut.replaceAll("[^A-Za-z0-9._-]", "?");
    }

    /**
     * The bridge of an interactive run (claude's stream-json control protocol): a {@code control_request}
     * {@code can_use_tool} line becomes an open permission request and its {@code permission-request} event; after
     * the CLI's {@code result} stdin is closed, so the CLI ends its turn and exits.
     */
    private final class InteractiveBridge extends Bridge {
        private String runId;

        InteractiveBridge(StreamParser parser) {
            super(parser);
        }

        @Override
        public void bind(String id) {
            runId = id;
        }

        @Override
        public List<String> parse(String line) {
            if (line.startsWith("{") && line.contains("\"control_request\"")) {
                JsonNode n = parse(line, null);
                if (n != null && "control_request".equals(n.path("type").asText())
                        && "can_use_tool".equals(n.path("request").path("subtype").asText())) {
                    JsonNode r = n.path("request");
                    permissions.opened(runId, n.path("request_id").asText(), r.path("tool_name").asText(),
                            r.get("input"));
                    return List.of();
                }
            }
            List<String> out = super.parse(line);
            if (line.contains("\"result\"")) {
                JsonNode n = parse(line, null);
                if (n != null && "result".equals(n.path("type").asText())) {
                    engine.closeInput(runId);
                }
            }
            return out;
        }

        @Override
        public List<String> finish(int exitCode) {
            permissions.forget(runId);
            return super.finish(exitCode);
        }

        private JsonNode parse(String line, JsonNode fallback) {
            try {
                return mapper.readTree(line);
            } catch (IOException | RuntimeException e) {
                return fallback;
            }
        }
    }

    /** The provider's stream parser as the engine's line parser: each event as its {@link EventJson} text. */
    private class Bridge implements LineParser {
        private final StreamParser parser;

        Bridge(StreamParser parser) {
            this.parser = parser;
        }

        @Override
        public List<String> parse(String line) {
            return texts(parser.parse(line));
        }

        @Override
        public List<String> finish(int exitCode) {
            return texts(parser.finish(exitCode));
        }

        private List<String> texts(List<AgentEvent> list) {
            if (list.isEmpty()) {
                return List.of();
            }
            List<String> out = new ArrayList<>(list.size());
            for (AgentEvent e : list) {
                out.add(events.toJson(e).toString());
            }
            return out;
        }
    }

}
