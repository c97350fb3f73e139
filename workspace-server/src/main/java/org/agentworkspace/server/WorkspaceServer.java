package org.agentworkspace.server;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

import io.helidon.common.socket.SocketOptions;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http1.Http1Config;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.core.WorkspaceEngine;
import org.agentworkspace.api.vcs.GitCredentials;
import org.agentworkspace.core.agent.AgentRunService;
import org.agentworkspace.core.agent.Repositories;
import org.agentworkspace.core.system.SystemUpdater;
import org.agentworkspace.server.http.BuildInfo;
import org.agentworkspace.server.http.ConnectionGate;
import org.agentworkspace.server.http.DroppedConnections;
import org.agentworkspace.server.http.ErrorResponses;
import org.agentworkspace.server.http.Filters;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.Json;
import org.agentworkspace.server.http.OpenApiDocument;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.SessionTokens;
import org.agentworkspace.server.http.WebApp;
import org.agentworkspace.server.routes.AgentService;
import org.agentworkspace.core.files.BrowseFilesystem;
import org.agentworkspace.server.routes.ApiKeyService;
import org.agentworkspace.server.routes.AutomationService;
import org.agentworkspace.server.routes.AuthService;
import org.agentworkspace.server.routes.BrowseService;
import org.agentworkspace.server.routes.FilesService;
import org.agentworkspace.server.routes.GitService;
import org.agentworkspace.server.routes.GitTokenService;
import org.agentworkspace.server.routes.McpService;
import org.agentworkspace.server.routes.NetworkService;
import org.agentworkspace.server.routes.HistoryService;
import org.agentworkspace.server.routes.ProjectsService;
import org.agentworkspace.server.routes.ProvidersService;
import org.agentworkspace.server.routes.WorkflowsService;
import org.agentworkspace.server.routes.SettingsService;
import org.agentworkspace.server.routes.NotificationsService;
import org.agentworkspace.server.routes.SystemService;
import org.agentworkspace.server.routes.TasksService;
import org.agentworkspace.server.routes.UserService;
import org.agentworkspace.server.chat.ChatEndpoint;
import org.agentworkspace.server.chat.ChatLimits;
import org.agentworkspace.server.chat.ChatService;
import org.agentworkspace.server.shell.ShellEndpoint;
import org.agentworkspace.server.shell.ShellLimits;
import org.agentworkspace.server.shell.ShellService;
import org.agentworkspace.server.http.WsGate;
import org.agentworkspace.api.provider.BinaryLocator;
import org.agentworkspace.core.shell.ShellSessions;
import io.helidon.webserver.websocket.WsConfig;
import io.helidon.webserver.websocket.WsRouting;

/**
 * The running server: the engine behind Helidon's web server. {@link #routing} is the one place routes are
 * assembled; the server and the tests both use it.
 */
public final class WorkspaceServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(WorkspaceServer.class.getName());

    private final WorkspaceEngine engine;
    private final WebServer web;
    private final RouteTable table;
    private final ShellEndpoint shell;
    private final ChatEndpoint chat;
    private final ConnectionGate gate;

    private WorkspaceServer(WorkspaceEngine engine, WebServer web, RouteTable table, ShellEndpoint shell,
                            ChatEndpoint chat, ConnectionGate gate) {
        this.engine = engine;
        this.web = web;
        this.table = table;
        this.shell = shell;
        this.chat = chat;
        this.gate = gate;
    }

    /** What the routing needs, built once per server. */
    public record Context(WorkspaceEngine engine, ServerConfig config, Json json, SessionTokens tokens, Guard guard,
                          ErrorResponses errors, BuildInfo build, OpenApiDocument openApi, BrowseFilesystem browser,
                          AgentRunService runService, Repositories repositories, ChatEndpoint chat,
                          Map<String, String> env, SystemUpdater updater, ProcessExit exit) {
        public static Context create(WorkspaceEngine engine, ServerConfig config, Map<String, String> env) {
            return create(engine, config, env, ChatLimits.defaults());
        }

        public static Context create(WorkspaceEngine engine, ServerConfig config, Map<String, String> env,
                                     ChatLimits chatLimits) {
            return create(engine, config, env, chatLimits, OpenApiDocument.load());
        }

        /** As {@link #create(WorkspaceEngine, ServerConfig, Map, ChatLimits)}, with the document already loaded. */
        public static Context create(WorkspaceEngine engine, ServerConfig config, Map<String, String> env,
                                     ChatLimits chatLimits, OpenApiDocument openApi) {
            return create(engine, config, env, chatLimits, openApi, ProcessExit.SYSTEM);
        }

        /** As above, with the way the process exits after a restart or self-update ({@link ProcessExit}). */
        public static Context create(WorkspaceEngine engine, ServerConfig config, Map<String, String> env,
                                     ChatLimits chatLimits, OpenApiDocument openApi, ProcessExit exit) {
            Json json = new Json(config.maxFileBodyBytes());
            SessionTokens tokens = new SessionTokens(engine.signingSecret(), engine.config().clock(),
                    engine.config().auth().sessionLifetime());
            Guard guard = new Guard(engine.auth(), tokens, config, json, openApi.bodyFields(),
                    engine.openStreams());
            // where work runs: placed routes go to a node whose roots hold the project's folder (docs/scale-out.md)
            guard.useNodes(new org.agentworkspace.server.http.NodeRouter(engine.nodes(), engine.projects(),
                    engine.history(), engine.signingSecret(), config.node().runnerOnly()));
            BrowseFilesystem browser = BrowseFilesystem.create(config.browseRoots(),
                    ServerConfig.home(env), config.fileLimits().maxEntries(), false);
            // the engine owns the run use cases (AgentRunService): provider defaults, projects, visibility, sessions,
            // the scheduler; the server only hands it the operator's agent settings
            AgentRunService runService = engine.agentRuns(config.agent());
            return new Context(engine, config, json, tokens, guard, new ErrorResponses(json), BuildInfo.detect(env),
                    openApi, browser, runService,
                    new Repositories(config.agent(), engine.config().dataDir()),
                    new ChatEndpoint(new WsGate(guard), runService, chatLimits, json.mapper()), Map.copyOf(env),
                    SystemUpdater.create(config.update().sourceDir() != null ? config.update()
                            : config.update().withSourceDir(BuildInfo.checkoutRoot()), env), exit);
        }
    }

    /**
     * Assembles every route: filters, one service per resource family, the error handlers, and the final
     * not-found answer. Returns the route table; it refuses (throws) when a route is declared twice, lacks a
     * declaration, or disagrees with the OpenAPI document.
     */
    public static RouteTable routing(HttpRouting.Builder routing, Context ctx) {
        RouteTable table = new RouteTable();
        AutomationService automation = new AutomationService(ctx.runService(), ctx.config(), ctx.engine().projects(),
                ctx.guard(), table);
        routing.addFilter(Filters.hostCheck(ctx.config(), ctx.errors(), ctx.guard()));
        if (ctx.config().node().runnerOnly()) {
            routing.addFilter(Filters.runnerOnly(ctx.errors(), ctx.guard().nodes().orElseThrow()));
        }
        routing.addFilter(Filters.securityHeaders());
        routing.register(
                new SystemService(ctx.build(), ctx.openApi(), ctx.engine().auth(), ctx.engine().notifications(),
                        ctx.json(), ctx.updater(), ctx.exit(), ctx.guard(), table),
                new AuthService(ctx.engine().auth(), ctx.tokens(), ctx.guard(), table, ctx.config()),
                new ApiKeyService(ctx.engine().auth().apiKeys(), ctx.guard(), table),
                new UserService(ctx.engine().auth().accounts(), ctx.guard(), table),
                new ProjectsService(ctx.engine().projects(), ctx.engine().history(), ctx.guard(), table),
                new HistoryService(ctx.engine().history(), (sessionId, userId) -> ctx.runService()
                        .latestOfSession(sessionId).filter(run -> run.owner().accountId() != null
                                && run.owner().accountId() == userId).isPresent(), ctx.guard(), table),
                new FilesService(ctx.engine().projects(), ctx.config().fileLimits(), ctx.config().maxFileBodyBytes(),
                        ctx.guard(), table),
                new GitService(ctx.engine().projects(), ctx.engine().gitTokens(), ctx.config().vcsOptions(),
                        ctx.guard(), table),
                new GitTokenService(ctx.engine().gitTokens(), ctx.guard(), table),
                new SettingsService(ctx.engine().settings(), ctx.guard(), table),
                new NotificationsService(ctx.engine().notifications(), ctx.guard(), table),
                NetworkService.create(ctx.config(), ctx.env(), ctx.guard(), table),
                new BrowseService(ctx.browser(), defaultBrowsePath(ctx.config(), ServerConfig.home(ctx.env())),
                        ctx.guard(), table),
                new AgentService(ctx.runService(), ctx.repositories(),
                        userId -> ctx.engine().gitTokens().credentials(userId).map(GitCredentials::token),
                        ctx.config(), ctx.engine().projects(), ctx.guard(), table),
                automation,
                new TasksService(ctx.engine().tasks(), ctx.runService(), ctx.engine().projects(),
                        ctx.engine().providers(), automation, ctx.guard(), table),
                new ShellService(new WsGate(ctx.guard()), ctx.guard(), table),
                new ChatService(new WsGate(ctx.guard()), ctx.chat(), ctx.guard(), table),

                new ProvidersService(ctx.engine().providers(), ctx.engine().auth(), ctx.json(), ctx.guard(), table),
                new McpService(ctx.engine().providers().mcp(), ctx.guard(), table),
                new WorkflowsService(ctx.engine().workflowRuns(), ctx.runService(), ctx.config(),
                        ctx.engine().projects(), ctx.guard(), table),
                new org.agentworkspace.server.routes.AgentLoopService(ctx.engine().agentLoop(), ctx.runService(),
                        ctx.guard(), table));
        WebApp web = WebApp.load();
        routing.any((req, res) -> {
            List<String> methods = table.methodsFor(req.path().path());
            if (methods.isEmpty() && web.serve(req, res)) {
                return;
            }
            if (methods.isEmpty()) {
                ctx.errors().write(res, Status.NOT_FOUND_404, ErrorCodes.ROUTE_NOT_FOUND,
                        "no route for " + req.prologue().method().text() + " " + printable(req.path().path()));
            } else {
                res.header(HeaderNames.ALLOW, String.join(", ", methods));
                ctx.errors().write(res, Status.METHOD_NOT_ALLOWED_405, ErrorCodes.METHOD_NOT_ALLOWED,
                        "method not allowed; use " + String.join(", ", methods));
            }
        });
        ctx.errors().register(routing);
        return table;
    }

    /** {@code ~} when the home folder lies in a browse root, otherwise the first root. */
    private static String defaultBrowsePath(ServerConfig config, Path home) {
        for (Path root : config.browseRoots()) {
            try {
                if (home.toRealPath().startsWith(root.toRealPath())) {
                    return "~";
                }
            } catch (java.io.IOException e) {
                // a missing root is reported when the browser is built
            }
        }
        return config.browseRoots().getFirst().toString();
    }

    /** Builds the routing, checks the route table, and starts listening. */
    public static WorkspaceServer start(ServerConfig config) {
        return start(config, System.getenv());
    }

    /**
     * @param env the server's environment: HOME, PATH and the other variables provider management and the CLIs'
     *            children may use (only an allow-list ever reaches a child)
     */
    public static WorkspaceServer start(ServerConfig config, Map<String, String> env) {
        return start(config, env, ShellLimits.defaults());
    }

    /** As {@link #start(ServerConfig, Map)}, with the terminal limits of {@code /shell}. */
    public static WorkspaceServer start(ServerConfig config, Map<String, String> env, ShellLimits shellLimits) {
        return start(config, env, shellLimits, ChatLimits.fromEnvironment(env));
    }

    /** As {@link #start(ServerConfig, Map)}, with the limits of {@code /shell} and {@code /ws}. */
    public static WorkspaceServer start(ServerConfig config, Map<String, String> env, ShellLimits shellLimits,
                                        ChatLimits chatLimits) {
        return start(config, env, shellLimits, chatLimits, ProcessExit.SYSTEM);
    }

    /** As {@link #start(ServerConfig, Map)}, with the way the process exits for a restart ({@link ProcessExit}). */
    public static WorkspaceServer start(ServerConfig config, Map<String, String> env, ProcessExit exit) {
        return start(config, env, ShellLimits.defaults(), ChatLimits.fromEnvironment(env), exit);
    }

    /**
     * As {@link #start(ServerConfig, Map)}, with the limits of {@code /shell} and {@code /ws} and the way the
     * process exits after a restart or a self-update: {@link ProcessExit#SYSTEM} by default (the real server).
     */
    public static WorkspaceServer start(ServerConfig config, Map<String, String> env, ShellLimits shellLimits,
                                        ChatLimits chatLimits, ProcessExit exit) {
        long t0 = System.nanoTime();
        // every accepted connection passes the gate first: caps in all and per address, the request-head deadline
        // (answers go out at once: with Nagle's algorithm a response written in several pieces waited for the
        // client's delayed ACK, 40 ms on Linux, about one request in ten)
        DroppedConnections.install();
        ConnectionGate gate = new ConnectionGate(SocketOptions.builder().tcpNoDelay(true).build(),
                config.connections(), addresses(config.trustedProxies()));
        // what does not need the engine is prepared on the second core while the engine opens: the OpenAPI document
        // (a YAML parse) and Helidon's side (its service registry and mappers, the protocol settings); the route
        // check below waits for the document, so nothing is served before it passed
        FutureTask<WebParts> web0 = new FutureTask<>(() -> WebParts.prepare(config, shellLimits, chatLimits, gate));
        Thread.ofPlatform().name("aw-start-web").daemon().start(web0);
        WorkspaceEngine engine;
        try {
            // the configured CLI binaries (--cli-path) are never inside or around a project
            engine = WorkspaceEngine.open(config.engine().withAccess(config.engine().access()
                    .withCliFolders(List.copyOf(config.agent().binaries().values()))), env);
        } catch (RuntimeException | Error e) {
            gate.close();
            throw e;
        }
        IndexingHeap.during(engine.history());
        long tEngine = System.nanoTime();
        ShellEndpoint shell = null;
        ChatEndpoint chat = null;
        try {
            WebParts parts = await(web0);
            long tParts = System.nanoTime();
            parts.openApi().saveCopy(openApiCache(config));
            Context ctx = Context.create(engine, config, env, chatLimits, parts.openApi(), exit);
            long tContext = System.nanoTime();
            chat = ctx.chat();
            HttpRouting.Builder routing = parts.routing();
            RouteTable table = routing(routing, ctx);
            long tRouting = System.nanoTime();
            table.verify();
            List<String> mismatches = ctx.openApi().mismatches(table);
            long tVerify = System.nanoTime();
            if (!mismatches.isEmpty()) {
                throw new IllegalStateException("routes disagree with the OpenAPI document:\n  "
                        + String.join("\n  ", mismatches));
            }
            // terminals inherit from the server's environment as given (the one the engine and the runs use), so
            // a terminal's HOME is the home the CLIs and their histories use
            ShellSessions shells = ShellSessions.create(shellLimits.sessions(), engine.projects(),
                    engine.providers().adapters(), BinaryLocator.create(config.engine().dataDir(), env.get("PATH"),
                            null), env);
            shell = new ShellEndpoint(new WsGate(ctx.guard()), shells, shellLimits, ctx.json().mapper());
            long tShell = System.nanoTime();
            // the warm-ups (the first project list, say) run while the listener starts: on a restart the list is
            // in the store already, and a client's first request then finds it serialized
            List<Runnable> warmUps = table.warmUps();
            if (!warmUps.isEmpty()) {
                Thread.ofPlatform().daemon().name("aw-warm-up").start(() -> {
                    for (Runnable r : warmUps) {
                        try {
                            r.run();
                        } catch (RuntimeException e) {
                            LOG.log(System.Logger.Level.DEBUG, "warm-up failed: " + e);
                        }
                    }
                });
            }
            ShellEndpoint endpoint = shell;
            ChatEndpoint chatEndpoint = chat;
            WebServer web = WebServer.builder()
                    .host(config.host())
                    .port(config.port())
                    .shutdownHook(false)
                    .shutdownGracePeriod(config.shutdownGrace())
                    .connectionOptions(gate)
                    // the largest per-route limit; every route enforces its own (Guard, Call)
                    .maxPayloadSize(config.maxFileBodyBytes())
                    .idleConnectionTimeout(config.connections().idleTimeout())
                    .addProtocol(parts.http1())
                    .directHandlers(ctx.errors().directHandlers())
                    .addProtocol(parts.websocket())
                    .routing(routing)
                    .addRouting(WsRouting.builder().endpoint(ShellEndpoint.PATH, endpoint::listener)
                            .endpoint(ChatEndpoint.PATH, chatEndpoint::listener))
                    .build()
                    .start();
            if (!web.isRunning() || web.port() <= 0) {
                web.stop();
                throw new IllegalStateException("cannot listen on " + config.host() + ":" + config.port()
                        + " (is the port in use?)");
            }
            // this node's roots and address, for the other nodes of a shared store (docs/scale-out.md)
            ctx.guard().nodes().orElseThrow().publish(config.node().advertised(config.host(), web.port(),
                    org.agentworkspace.core.runs.RunNode.localHost()), engine.projects().roots().roots());
            long tWeb = System.nanoTime();
            LOG.log(System.Logger.Level.INFO, "Agent Workspace " + ctx.build().version() + " listening on http://"
                    + config.host() + ":" + web.port() + " (data in " + config.engine().dataDir() + ")");
            LOG.log(System.Logger.Level.INFO, String.format(java.util.Locale.ROOT, "started in %d ms: engine %d, "
                    + "waiting for the web parts %d, context %d, routes %d, route check %d, shell %d, listener %d",
                    (tWeb - t0) / 1_000_000, (tEngine - t0) / 1_000_000, (tParts - tEngine) / 1_000_000,
                    (tContext - tParts) / 1_000_000, (tRouting - tContext) / 1_000_000,
                    (tVerify - tRouting) / 1_000_000, (tShell - tVerify) / 1_000_000, (tWeb - tShell) / 1_000_000));
            return new WorkspaceServer(engine, web, table, shell, chat, gate);
        } catch (RuntimeException e) {
            gate.close();
            if (chat != null) {
                chat.close();
            }
            if (shell != null) {
                shell.shells().close();
                shell.close();
            }
            engine.close();
            throw e;
        }
    }

    /** The parts of the web server that do not depend on the engine (prepared while it opens). */
    private record WebParts(OpenApiDocument openApi, HttpRouting.Builder routing, Http1Config http1,
                            WsConfig websocket) {
        static WebParts prepare(ServerConfig config, ShellLimits shellLimits, ChatLimits chatLimits,
                                ConnectionGate gate) {
            OpenApiDocument doc = OpenApiDocument.load(openApiCache(config));
            HttpRouting.Builder routing = HttpRouting.builder();
            Http1Config http1 = Http1Config.builder()
                    .maxHeadersSize(config.maxHeaderBytes())
                    .maxPrologueLength(8192)
                    .addReceiveListener(gate.receiveListener())
                    .build();
            WsConfig ws = WsConfig.builder().name("websocket")
                    .maxFrameLength(Math.max(shellLimits.maxMessageBytes(), chatLimits.maxMessageBytes()))
                    .build();
            return new WebParts(doc, routing, http1, ws);
        }
    }

    /** The trusted proxies' addresses (IP literals; anything else is ignored here). */
    private static java.util.Set<java.net.InetAddress> addresses(java.util.Set<String> ips) {
        java.util.Set<java.net.InetAddress> out = new java.util.HashSet<>();
        for (String ip : ips) {
            if (ip.matches("[0-9.]+|[0-9a-fA-F:]*:[0-9a-fA-F:.]*")) {
                try {
                    out.add(java.net.InetAddress.getByName(ip));
                } catch (java.net.UnknownHostException e) {
                    // not a literal after all: the Guard reports bad proxy entries
                }
            }
        }
        return out;
    }

    /** Where the server keeps its JSON copy of the OpenAPI document ({@link OpenApiDocument#load(Path)}). */
    private static Path openApiCache(ServerConfig config) {
        return config.engine().dataDir().resolve("cache");
    }

    /** The task's result; its exception (e.g. a missing or unreadable OpenAPI document) is rethrown as thrown. */
    private static WebParts await(FutureTask<WebParts> task) {
        try {
            return task.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while preparing the web server", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException("the web server cannot be prepared", e.getCause());
        }
    }

    public int port() {
        return web.port();
    }

    public URI baseUri() {
        return URI.create("http://127.0.0.1:" + port());
    }

    public WorkspaceEngine engine() {
        return engine;
    }

    /** The {@code /shell} endpoint (connection counts). */
    public ShellEndpoint shellEndpoint() {
        return shell;
    }

    /** The {@code /ws} endpoint (connection counts, slow-consumer cuts). */
    public ChatEndpoint chatEndpoint() {
        return chat;
    }

    /** The terminals behind {@code /shell}. */
    public ShellSessions shells() {
        return shell.shells();
    }

    public RouteTable routes() {
        return table;
    }

    /**
     * The background workers the service cannot run without, each with a check that it is alive; {@link Main}'s
     * {@link Watchdog} ends the process when one fails.
     */
    public Map<String, java.util.function.BooleanSupplier> vitalThreads() {
        return Map.of("the task scheduler (restarted after errors, until it gave up)",
                () -> engine.tasks().schedulerHealthy(),
                "the connection gate's sweeper", gate::sweeping,
                "the node heartbeat (restarted after errors, until it gave up)",
                engine::nodeHeartbeatHealthy);
    }

    /** The connection gate (caps and the request-head deadline). */
    public ConnectionGate connectionGate() {
        return gate;
    }

    /** Stops accepting, lets in-flight requests finish within the grace period, then closes the engine. */
    @Override
    public void close() {
        try {
            web.stop();
        } finally {
            gate.close();
            try {
                chat.close();
                shell.close();
                shell.shells().close();
            } finally {
                engine.close();
            }
        }
    }

    private static String printable(String s) {
        String cut = s.length() > 200 ? s.substring(0, 200) + "…" : s;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }
}
