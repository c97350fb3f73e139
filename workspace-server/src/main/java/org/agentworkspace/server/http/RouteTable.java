package org.agentworkspace.server.http;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Every route the server answers, with its access declaration. Services can only add routes through
 * {@link ApiService.Routes}, which requires a declaration; {@link #verify()} runs before the server starts and
 * refuses duplicates or missing declarations, and the tests compare the table with the OpenAPI document.
 */
public final class RouteTable {
    /** One route: method, path template ({@code /api/settings/api-keys/{keyId}}) and its access rule. */
    public record Route(String method, String path, Access access, String family) {
        public Route {
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(family, "family");
            if (access == null) {
                throw new IllegalStateException("route " + method + " " + path + " has no access declaration");
            }
        }

        boolean matches(String concretePath) {
            return pattern(path).matcher(concretePath).matches();
        }
    }

    private final List<Route> routes = new ArrayList<>();
    private final List<Runnable> warmUps = new ArrayList<>();

    /** Work a service wants done once the server listens (in the background), such as caching a first answer. */
    public synchronized void warmUp(Runnable work) {
        warmUps.add(work);
    }

    public synchronized List<Runnable> warmUps() {
        return List.copyOf(warmUps);
    }

    void add(Route route) {
        routes.add(route);
    }

    public List<Route> routes() {
        return Collections.unmodifiableList(routes);
    }

    /** Fails when two routes share a method and path, or a route lacks a declaration. */
    public void verify() {
        List<String> seen = new ArrayList<>();
        for (Route r : routes) {
            String key = r.method() + " " + r.path();
            if (seen.contains(key)) {
                throw new IllegalStateException("route declared twice: " + key);
            }
            seen.add(key);
        }
    }

    /** The methods that have a route for this concrete path (for 405 answers). */
    public List<String> methodsFor(String concretePath) {
        return routes.stream().filter(r -> r.matches(concretePath)).map(Route::method).distinct().toList();
    }

    public Optional<Route> find(String method, String concretePath) {
        String m = method.toUpperCase(Locale.ROOT);
        return routes.stream().filter(r -> r.method().equals(m) && r.matches(concretePath)).findFirst();
    }

    static Pattern pattern(String template) {
        StringBuilder b = new StringBuilder();
        for (String part : template.split("(?=\\{)|(?<=})")) {
            if (part.startsWith("{") && part.endsWith("}")) {
                b.append("[^/]+");
            } else {
                b.append(Pattern.quote(part));
            }
        }
        return Pattern.compile(b.toString());
    }
}
