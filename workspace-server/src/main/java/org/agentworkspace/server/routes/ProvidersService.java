package org.agentworkspace.server.routes;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;

import io.helidon.http.Status;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.Scope;
import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.auth.Authentication;
import org.agentworkspace.core.journal.JournalCursor;
import org.agentworkspace.core.providers.ConfigFileContent;
import org.agentworkspace.core.providers.ConfigFileEntry;
import org.agentworkspace.core.providers.InstallJob;
import org.agentworkspace.core.providers.InstallJobs;
import org.agentworkspace.core.providers.JobEvent;
import org.agentworkspace.core.providers.ModelEntry;
import org.agentworkspace.core.providers.OAuthCallbacks;
import org.agentworkspace.core.providers.ProviderCredentialStore;
import org.agentworkspace.core.providers.ProviderManagement;
import org.agentworkspace.core.providers.ProviderStatus;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.Json;
import org.agentworkspace.server.http.JournalStream;
import org.agentworkspace.server.http.RouteTable;
import org.agentworkspace.server.http.StreamLimiter;

/**
 * Provider management ({@code /api/providers/...}): status, the credential inventory and stored keys, the OAuth
 * callback paste, model catalogs, install jobs and their event streams, and the config file catalog. Reading state
 * needs {@code providers:read}; every change, and reading config files (they can hold secrets), is for signed-in
 * users only. docs/provider-management.md describes the rules.
 */
public final class ProvidersService extends ApiService {
    /** A config file body: the 1 MiB file JSON-escaped, with room to spare. */
    static final long CONFIG_BODY_LIMIT = 4L << 20;

    private final ProviderManagement pm;
    private final InstallStream stream;

    public ProvidersService(ProviderManagement pm, Authentication auth, Json json, Guard guard, RouteTable table) {
        super("providers", guard, table);
        this.pm = pm;
        this.stream = new InstallStream(json);
    }

    @Override
    protected void declare(Routes r) {
        Access read = Access.scope(Scope.PROVIDERS_READ);
        r.get("/api/providers/credentials", read, this::inventory)
                .get("/api/providers/{provider}/auth/status", read, this::status)
                .post("/api/providers/{provider}/auth/api-key", Access.session(), this::saveKey)
                .delete("/api/providers/{provider}/auth/api-key", Access.session(), this::deleteKey)
                .post("/api/providers/{provider}/oauth-paste", Access.session(), this::oauthPaste)
                .get("/api/providers/{provider}/models", read, this::models)
                .delete("/api/providers/{provider}/models/cache", Access.session(), this::clearModels)
                // CLI binaries and their config files are host state every account's runs use: administrators only
                .post("/api/providers/{provider}/install", Access.session().admin(), this::install)
                .get("/api/providers/{provider}/install/{jobId}/stream", Access.session().admin().stream(),
                        this::follow)
                .delete("/api/providers/{provider}/install/{jobId}", Access.session().admin(), this::cancel)
                .get("/api/providers/{provider}/config-files", read, this::configFiles)
                .get("/api/providers/{provider}/config-files/{fileId}", Access.session().admin(), this::readConfig)
                .put("/api/providers/{provider}/config-files/{fileId}", Access.session().admin(), CONFIG_BODY_LIMIT,
                        this::writeConfig);
    }

    private String provider(Call call) {
        return pm.catalog().require(call.pathParam("provider")).id();
    }

    private void inventory(Call call) {
        long me = call.principal().user().id();
        Map<String, Optional<ProviderCredentialStore.Info>> service = pm.credentials().inventory();
        Map<String, Optional<ProviderCredentialStore.Info>> own = pm.credentials().inventoryOwn(me);
        Map<String, Object> out = new LinkedHashMap<>();
        service.forEach((id, info) -> out.put(id, credentialView(own.get(id), info)));
        call.ok(out);
    }

    /**
     * One provider in the inventory, for the caller: the top-level fields describe the credential a run the caller
     * starts now would use (own, else service), {@code effectiveSource} says which (or {@code none}: the CLI's own
     * login, if it has one), and {@code own} and {@code service} describe both levels. Never a key.
     */
    static Map<String, Object> credentialView(Optional<ProviderCredentialStore.Info> own,
                                              Optional<ProviderCredentialStore.Info> service) {
        Optional<ProviderCredentialStore.Info> effective = own.isPresent() ? own : service;
        Map<String, Object> m = level(effective);
        m.put("effectiveSource", own.isPresent() ? ProviderCredentialStore.Source.OWN.wire()
                : service.isPresent() ? ProviderCredentialStore.Source.SERVICE.wire()
                : ProviderCredentialStore.Source.NONE.wire());
        m.put("own", level(own));
        m.put("service", level(service));
        return m;
    }

    private static Map<String, Object> level(Optional<ProviderCredentialStore.Info> info) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("hasCredential", info.isPresent());
        m.put("masked", info.map(ProviderCredentialStore.Info::masked).orElse(null));
        m.put("baseUrl", info.map(ProviderCredentialStore.Info::baseUrl).orElse(null));
        m.put("updatedAt", info.map(i -> i.updatedAt().toString()).orElse(null));
        return m;
    }

    private void status(Call call) {
        ProviderStatus s = pm.status(provider(call), call.principal().user().id());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", s.id());
        m.put("installed", s.installed());
        m.put("authenticated", s.authenticated());
        m.put("version", s.version());
        m.put("binaryPath", s.binaryPath());
        m.put("authMethod", s.authMethod());
        m.put("authSource", s.authSource());
        m.put("effectiveSource", s.effectiveSource());
        call.ok(m);
    }

    /**
     * {@code shared: true} names the service-wide credential, which only administrators may set or remove: any
     * other account doing so could point every other account's runs at an endpoint of its choosing.
     */
    private static boolean shared(Call call, boolean shared) {
        if (shared && !call.principal().user().admin()) {
            throw new WorkspaceException.Forbidden(ErrorCodes.ADMIN_REQUIRED,
                    "only administrators set the service-wide credential; leave out shared to store your own key");
        }
        return shared;
    }

    private void saveKey(Call call) {
        String provider = provider(call);
        JsonNode body = call.body();
        boolean shared = shared(call, Call.optionalBoolean(body, "shared", false));
        String apiKey = Call.requiredString(body, "apiKey");
        String baseUrl = Call.optionalString(body, "baseUrl").orElse(null);
        long me = call.principal().user().id();
        ProviderCredentialStore.Info info = shared ? pm.credentials().save(provider, apiKey, baseUrl, me)
                : pm.credentials().saveOwn(me, provider, apiKey, baseUrl);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("success", true);
        m.put("provider", provider);
        m.put("shared", shared);
        m.put("hasCredential", true);
        m.put("masked", info.masked());
        m.put("baseUrl", info.baseUrl());
        m.put("effectiveSource", pm.credentials().source(provider, me).wire());
        call.noStore().ok(m);
    }

    private void deleteKey(Call call) {
        String provider = provider(call);
        boolean shared = shared(call, call.booleanQuery("shared", false));
        long me = call.principal().user().id();
        call.ack("removed", shared ? pm.credentials().delete(provider) : pm.credentials().deleteOwn(me, provider));
    }

    private void oauthPaste(Call call) throws InterruptedException {
        String provider = provider(call);
        JsonNode body = call.body();
        boolean shared = shared(call, Call.optionalBoolean(body, "shared", false));
        OAuthCallbacks.Result r = pm.oauth().paste(provider, Call.requiredString(body, "url"),
                call.principal().user().id(), shared);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("success", true);
        m.put("provider", provider);
        m.put("shared", shared);
        m.put("hasCredential", true);
        m.put("masked", r.masked());
        m.put("forwarded", r.forwarded());
        m.put("port", r.port());
        call.noStore().ok(m);
    }

    private void models(Call call) {
        List<Map<String, Object>> out = pm.models().list(provider(call), call.principal().user().id()).models().stream().map(ProvidersService::model)
                .toList();
        call.ok(out);
    }

    private static Map<String, Object> model(ModelEntry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", e.id());
        m.put("name", e.name());
        m.put("contextWindow", e.contextWindow());
        m.put("source", e.source());
        return m;
    }

    private void clearModels(Call call) {
        pm.models().clear(provider(call));
        call.ack();
    }

    private void install(Call call) {
        String provider = provider(call);
        String version = Call.optionalString(call.body(), "version").orElse(null);
        InstallJobs.Job job = pm.installs().start(provider, version);
        call.send(Status.ACCEPTED_202, job(job.snapshot()));
    }

    /**
     * Follows an install job: the kept events after {@code Last-Event-ID} (the one rule, docs/live-channels.md;
     * without one, all of them), then live until the job's terminal event.
     */
    private void follow(Call call) throws InterruptedException {
        InstallJobs.Job job = pm.installs().get(provider(call), call.pathParam("jobId"));
        StreamLimiter.Slot slot = follower().slot(call.principal());
        JournalCursor<JobEvent> cursor = job.journal().resume(JournalStream.lastEventId(call), 0);
        follower().follow(call.principal(), slot, cursor, stream,
                JournalStream.sse(call.response(), "no-cache, no-transform", true));
    }

    private void cancel(Call call) throws InterruptedException {
        call.ok(job(pm.installs().cancel(provider(call), call.pathParam("jobId"))));
    }

    /** The wire form of an install job. */
    static Map<String, Object> job(InstallJob j) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jobId", j.jobId());
        m.put("provider", j.provider());
        m.put("status", j.status().wire());
        m.put("package", j.npmPackage());
        m.put("requested", j.requested());
        m.put("version", j.installedVersion());
        m.put("startedAt", j.startedAt().toString());
        m.put("finishedAt", j.finishedAt() == null ? null : j.finishedAt().toString());
        m.put("exitCode", j.exitCode());
        m.put("binaryPath", j.binaryPath());
        m.put("error", j.errorCode() == null ? null : Map.of("code", j.errorCode(), "message", j.errorMessage()));
        return m;
    }

    private void configFiles(Call call) {
        call.ok(pm.configFiles().list(provider(call)).stream().map(ProvidersService::configEntry).toList());
    }

    private static Map<String, Object> configEntry(ConfigFileEntry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("fileId", e.fileId());
        m.put("path", e.path());
        m.put("label", e.label());
        m.put("exists", e.exists());
        m.put("size", e.size());
        m.put("format", e.format());
        m.put("readOnly", e.readOnly());
        return m;
    }

    private void readConfig(Call call) {
        ConfigFileContent c = pm.configFiles().read(provider(call), call.pathParam("fileId"));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("fileId", c.fileId());
        m.put("content", c.content());
        m.put("path", c.path());
        m.put("encoding", "utf-8");
        m.put("exists", c.exists());
        call.noStore().ok(m);
    }

    private void writeConfig(Call call) {
        String provider = provider(call);
        JsonNode body = call.body();
        JsonNode content = body.get("content");
        if (content == null || !content.isTextual()) {
            throw WorkspaceException.Validation.of("content is required and must be a string");
        }
        ConfigFileEntry e = pm.configFiles().write(provider, call.pathParam("fileId"), content.asText());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("success", true);
        m.put("fileId", e.fileId());
        m.put("path", e.path());
        m.put("size", e.size());
        call.ok(m);
    }
}
