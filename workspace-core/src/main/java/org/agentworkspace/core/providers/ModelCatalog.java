package org.agentworkspace.core.providers;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.agentworkspace.api.provider.ProviderCredentials;
import org.agentworkspace.api.provider.ProviderDescriptor;
import org.agentworkspace.api.provider.ProviderDescriptor.ModelApi;
import org.agentworkspace.core.network.LazyHttpClient;
import org.agentworkspace.core.json.JsonMappers;

/**
 * Model catalogs. Without a stored key a provider's catalog is its built-in list. With a stored key the catalog is
 * refreshed from the provider's model-list endpoint, through the stored base URL when there is one, and cached per
 * provider: a fetched list for {@link #fetchedTtl}, a failed fetch (which answers with the built-in list) for
 * {@link #FAILURE_TTL} so a broken endpoint is not asked on every call. {@link #clear} and any change of the stored
 * credential drop a provider's entry, so the next call fetches again.
 */
public final class ModelCatalog {
    private static final System.Logger LOG = System.getLogger(ModelCatalog.class.getName());
    /** How long a failed fetch is remembered. */
    public static final Duration FAILURE_TTL = Duration.ofMinutes(5);
    private static final Duration TIMEOUT = Duration.ofSeconds(15);
    private static final int MAX_PAGES = 10;
    private static final ObjectMapper JSON = JsonMappers.shared();

    private final ProviderCredentialStore credentials;
    private final Clock clock;
    private final Duration fetchedTtl;
    private final LazyHttpClient http;
    private final Map<String, Entry> cache = new ConcurrentHashMap<>();

    ModelCatalog(ProviderCredentialStore credentials, Clock clock, Duration fetchedTtl) {
        this.credentials = credentials;
        this.clock = clock;
        this.fetchedTtl = fetchedTtl;
        this.http = new LazyHttpClient(() -> HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
                .followRedirects(HttpClient.Redirect.NEVER).build());
        credentials.onChange(this::drop);
    }

    /**
     * A cached catalog.
     *
     * @param error why the last fetch failed (the models are then the built-in list), or {@code null}
     */
    public record Result(List<ModelEntry> models, Instant fetchedAt, boolean fromCache, String error) {
    }

    private record Entry(List<ModelEntry> models, Instant fetchedAt, String error) {
    }

    /** The provider's catalog through the service-wide credential (see the class comment). */
    public Result list(String provider) {
        return list(provider, null);
    }

    /**
     * The provider's catalog as account {@code userId} sees it: asked with the credential a run of that account
     * would use (its own key, else the service key), cached per provider and credential owner.
     */
    public Result list(String provider, Long userId) {
        ProviderFacts facts = credentials.catalog().require(provider);
        ProviderCredentialStore.Resolved resolved = credentials.resolve(provider, userId);
        ProviderCredentials creds = resolved.credentials();
        if (!creds.hasApiKey() || endpoint(facts, creds) == null) {
            return new Result(builtin(facts), null, false, null);
        }
        String cacheKey = resolved.source() == ProviderCredentialStore.Source.OWN ? provider + "#" + userId : provider;
        Entry e = cache.get(cacheKey);
        Instant now = clock.instant();
        if (e != null) {
            Duration ttl = e.error() == null ? fetchedTtl : FAILURE_TTL;
            if (e.fetchedAt().plus(ttl).isAfter(now)) {
                return new Result(e.models(), e.fetchedAt(), true, e.error());
            }
        }
        Entry fresh;
        try {
            List<ModelEntry> fetched = fetch(facts, creds);
            fresh = fetched.isEmpty() ? new Entry(builtin(facts), now, "the endpoint listed no models")
                    : new Entry(fetched, now, null);
        } catch (IOException e2) {
            String why = e2.getMessage() != null && (e2.getMessage().startsWith("the model")
                    || e2 instanceof org.agentworkspace.core.network.OutboundPolicy.RefusedAddressException)
                    ? e2.getMessage() : "the model endpoint cannot be reached (" + e2.getClass().getSimpleName() + ")";
            LOG.log(System.Logger.Level.WARNING, "model list of {0} could not be fetched: {1}", provider, why);
            fresh = new Entry(builtin(facts), now, why);
        } catch (InterruptedException e2) {
            Thread.currentThread().interrupt();
            return new Result(builtin(facts), null, false, "interrupted");
        }
        cache.put(cacheKey, fresh);
        return new Result(fresh.models(), fresh.fetchedAt(), false, fresh.error());
    }

    /** Drops the provider's cached catalog; the next {@link #list} asks the endpoint again. */
    public void clear(String provider) {
        credentials.catalog().require(provider);
        drop(provider);
    }

    /** Drops the provider's entries: the service-wide one and every account's. */
    private void drop(String provider) {
        cache.keySet().removeIf(k -> k.equals(provider) || k.startsWith(provider + "#"));
    }

    static List<ModelEntry> builtin(ProviderFacts facts) {
        List<ModelEntry> out = new ArrayList<>();
        for (ProviderDescriptor.Model m : facts.descriptor().models().builtin()) {
            out.add(new ModelEntry(facts.id() + "/" + m.id(), m.name(), m.contextWindow(), "builtin"));
        }
        return List.copyOf(out);
    }

    /**
     * The model-list family and base used for these credentials, or null when there is none: the credential's own
     * endpoint in the descriptor's {@code apiWithBaseUrl} family, else the descriptor's default (opencode's key alone
     * lists Anthropic's models, named {@code anthropic/<model>}; docs/providers.md, opencode).
     */
    private static Api endpoint(ProviderFacts facts, ProviderCredentials creds) {
        ProviderDescriptor.Models m = facts.descriptor().models();
        String base = creds.baseUrl();
        if (base != null) {
            return m.apiWithBaseUrl() == ModelApi.NONE ? null : new Api(m.apiWithBaseUrl(), base, "");
        }
        return m.api() == ModelApi.NONE ? null : new Api(m.api(), m.defaultBaseUrl(), m.modelPrefix());
    }

    private record Api(ModelApi family, String base, String modelPrefix) {
    }

    private List<ModelEntry> fetch(ProviderFacts facts, ProviderCredentials creds)
            throws IOException, InterruptedException {
        Api api = endpoint(facts, creds);
        String base = trimSlash(api.base());
        Set<String> seen = new LinkedHashSet<>();
        List<ModelEntry> out = new ArrayList<>();
        switch (api.family()) {
            case ANTHROPIC -> {
                String after = null;
                for (int page = 0; page < MAX_PAGES; page++) {
                    String url = base + "/v1/models?limit=1000" + (after == null ? "" : "&after_id=" + enc(after));
                    JsonNode n = get(url, "x-api-key", creds.apiKey(), "anthropic-version", "2023-06-01");
                    for (JsonNode m : n.path("data")) {
                        add(out, seen, facts, api.modelPrefix() + m.path("id").asText(""),
                                m.path("display_name").asText(null), null);
                    }
                    if (!n.path("has_more").asBoolean(false) || n.path("last_id").asText("").isEmpty()) {
                        break;
                    }
                    after = n.path("last_id").asText();
                }
            }
            case OPENAI -> {
                JsonNode n = get(base + "/models", "Authorization", "Bearer " + creds.apiKey());
                for (JsonNode m : n.path("data")) {
                    Integer ctx = m.path("context_window").isInt() ? m.path("context_window").asInt() : null;
                    add(out, seen, facts, api.modelPrefix() + m.path("id").asText(""), null, ctx);
                }
            }
            case GEMINI -> {
                String token = null;
                for (int page = 0; page < MAX_PAGES; page++) {
                    String url = base + "/v1beta/models?pageSize=1000" + (token == null ? "" : "&pageToken=" + enc(token));
                    JsonNode n = get(url, "x-goog-api-key", creds.apiKey());
                    for (JsonNode m : n.path("models")) {
                        JsonNode methods = m.path("supportedGenerationMethods");
                        if (methods.isArray() && !methods.toString().contains("\"generateContent\"")) {
                            continue;
                        }
                        String name = m.path("name").asText("");
                        Integer ctx = m.path("inputTokenLimit").isInt() ? m.path("inputTokenLimit").asInt() : null;
                        add(out, seen, facts, name.startsWith("models/") ? name.substring(7) : name,
                                m.path("displayName").asText(null), ctx);
                    }
                    token = n.path("nextPageToken").asText("");
                    if (token.isEmpty()) {
                        break;
                    }
                }
            }
            case NONE -> {
            }
        }
        return List.copyOf(out);
    }

    private static void add(List<ModelEntry> out, Set<String> seen, ProviderFacts facts, String model, String name,
                            Integer ctx) {
        if (model.isBlank() || model.endsWith("/") || !seen.add(model)) {
            return;
        }
        out.add(new ModelEntry(facts.id() + "/" + model, name == null || name.isBlank() ? model : name,
                ctx != null && ctx > 0 ? ctx : null, "endpoint"));
    }

    private JsonNode get(String url, String... headers) throws IOException, InterruptedException {
        URI uri = URI.create(url);
        // the host is resolved now: a name that leads to a loopback, private or link-local address never gets the key
        credentials.outboundPolicy().checkConnect(uri);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET()
                .header("Accept", "application/json");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        HttpResponse<byte[]> res = http.get().send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        if (res.statusCode() / 100 != 2) {
            throw new IOException("the model endpoint answered HTTP " + res.statusCode());
        }
        if (res.body().length > 16 << 20) {
            throw new IOException("the model list is larger than 16 MiB");
        }
        try {
            return JSON.readTree(res.body());
        } catch (IOException e) {
            throw new IOException("the model endpoint did not answer JSON");
        }
    }

    private static String trimSlash(String s) {
        String t = s;
        while (t.endsWith("/")) {
            t = t.substring(0, t.length() - 1);
        }
        return t;
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
