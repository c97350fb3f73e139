package org.agentworkspace.server.http;

import java.util.Objects;
import java.util.Optional;

import io.helidon.http.Method;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;

/**
 * Base of every resource family's service. A family declares its routes through {@link Routes}, which records each
 * in the {@link RouteTable} with its {@link Access} and wraps the handler with the {@link Guard}: nothing reaches a
 * handler unauthenticated unless its route is declared public.
 */
public abstract class ApiService implements HttpService {
    private final String family;
    private final Guard guard;
    private final RouteTable table;

    protected ApiService(String family, Guard guard, RouteTable table) {
        this.family = Objects.requireNonNull(family);
        this.guard = Objects.requireNonNull(guard);
        this.table = Objects.requireNonNull(table);
    }

    /** Declares the family's routes; paths are absolute (the service is registered at the root). */
    protected abstract void declare(Routes routes);

    /** The JSON mapping of this service's calls (for answers serialized ahead of a request). */
    protected final Json json() {
        return guard.json();
    }

    /** Ends a stream of this service the moment its account is deleted (docs/auth.md). */
    protected final org.agentworkspace.core.auth.AccountWatch accountWatch() {
        return guard.accountWatch();
    }

    /** The per-account cap on open streams; a streaming route takes a slot before it writes anything. */
    protected StreamLimiter streams() {
        return guard.streams();
    }

    /** The one follower of every replayable stream (runs, install and update jobs, notifications). */
    protected final JournalStream follower() {
        return guard.journalStream();
    }

    @Override
    public final void routing(HttpRules rules) {
        declare(new Routes(rules));
    }

    /** A handler that receives the authenticated call. */
    @FunctionalInterface
    public interface Handler {
        void handle(Call call) throws Exception;
    }

    /** The only way to add a route: each needs an access declaration. */
    public final class Routes {
        private final HttpRules rules;
        private final NodeRouter.Folder folder;

        private Routes(HttpRules rules) {
            this(rules, null);
        }

        private Routes(HttpRules rules, NodeRouter.Folder folder) {
            this.rules = rules;
            this.folder = folder;
        }

        /**
         * The routes added through the answer act on the folder {@code folder} names: on a shared store they are
         * served by a node whose roots hold it, forwarded there when that is another node (docs/scale-out.md "Where
         * work runs"). The caller is authenticated and the body checked here first.
         */
        public Routes placed(NodeRouter.Folder folder) {
            return new Routes(rules, java.util.Objects.requireNonNull(folder, "folder"));
        }

        public Routes get(String path, Access access, Handler handler) {
            return add(Method.GET, path, access, 0, handler);
        }

        public Routes post(String path, Access access, Handler handler) {
            return add(Method.POST, path, access, 0, handler);
        }

        /** A POST whose body may be up to {@code maxBodyBytes} (instead of the server's default limit). */
        public Routes post(String path, Access access, long maxBodyBytes, Handler handler) {
            return add(Method.POST, path, access, maxBodyBytes, handler);
        }

        public Routes put(String path, Access access, Handler handler) {
            return add(Method.PUT, path, access, 0, handler);
        }

        /** A PUT whose body may be up to {@code maxBodyBytes} (instead of the server's default limit). */
        public Routes put(String path, Access access, long maxBodyBytes, Handler handler) {
            return add(Method.PUT, path, access, maxBodyBytes, handler);
        }

        public Routes patch(String path, Access access, Handler handler) {
            return add(Method.PATCH, path, access, 0, handler);
        }

        public Routes delete(String path, Access access, Handler handler) {
            return add(Method.DELETE, path, access, 0, handler);
        }

        /** {@code maxBodyBytes} 0: the server's default body limit. */
        private Routes add(Method method, String path, Access access, long maxBodyBytes, Handler handler) {
            if (maxBodyBytes < 0) {
                throw new IllegalArgumentException("a body limit cannot be negative");
            }
            table.add(new RouteTable.Route(method.text(), path, access, family));
            BodyShape shape = guard.bodyShape(method.text(), path);
            NodeRouter.Folder placement = folder;
            Handler placed = placement == null ? handler : call -> {
                Optional<NodeRouter> nodes = guard.nodes();
                if (nodes.isEmpty() || !nodes.get().forward(call, placement)) {
                    handler.handle(call);
                }
            };
            rules.route(method, path, (req, res) -> guard.handle(access, maxBodyBytes, shape, req, res, placed));
            return this;
        }
    }
}
