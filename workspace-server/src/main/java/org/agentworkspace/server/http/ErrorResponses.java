package org.agentworkspace.server.http;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderNames;
import io.helidon.http.HeaderValues;
import io.helidon.http.HttpException;
import io.helidon.http.Status;
import io.helidon.webserver.http.DirectHandlers;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import org.agentworkspace.api.ErrorCodes;
import org.agentworkspace.api.WorkspaceException;

/**
 * The one place errors become responses: {@code {success:false,error:{code,message}}}. Engine errors map by type
 * with an exhaustive switch; anything unexpected is a 500 {@code INTERNAL_ERROR} whose message carries only a
 * correlation id (the exception goes to the log under that id, never to the client); transport-level failures
 * (malformed requests, oversize bodies or headers) get the same envelope through Helidon's direct handlers.
 */
public final class ErrorResponses {
    private static final System.Logger LOG = System.getLogger(ErrorResponses.class.getName());

    private final Json json;

    public ErrorResponses(Json json) {
        this.json = json;
    }

    /** HTTP status of each engine error type. */
    public static Status status(WorkspaceException e) {
        return switch (e) {
            case WorkspaceException.Validation v -> Status.BAD_REQUEST_400;
            case WorkspaceException.Unauthenticated u -> Status.UNAUTHORIZED_401;
            case WorkspaceException.Forbidden f -> Status.FORBIDDEN_403;
            case WorkspaceException.NotFound n -> Status.NOT_FOUND_404;
            case WorkspaceException.Conflict c -> Status.CONFLICT_409;
            case WorkspaceException.Gone g -> Status.GONE_410;
            case WorkspaceException.PayloadTooLarge p -> Status.REQUEST_ENTITY_TOO_LARGE_413;
            case WorkspaceException.UnsupportedMediaType m -> Status.UNSUPPORTED_MEDIA_TYPE_415;
            case WorkspaceException.RateLimited r -> Status.TOO_MANY_REQUESTS_429;
            case WorkspaceException.Unavailable u -> Status.SERVICE_UNAVAILABLE_503;
        };
    }

    /** Registers the error handlers on a routing. */
    public void register(HttpRouting.Builder routing) {
        routing.error(WorkspaceException.class, this::workspace);
        routing.error(HttpException.class, this::http);
        routing.error(Throwable.class, this::unexpected);
    }

    private void workspace(ServerRequest req, ServerResponse res, WorkspaceException e) {
        if (e instanceof WorkspaceException.RateLimited r) {
            res.header(HeaderNames.RETRY_AFTER, Long.toString(r.retryAfterSeconds()));
        }
        if (e instanceof WorkspaceException.Unauthenticated) {
            res.header(HeaderNames.WWW_AUTHENTICATE, "Bearer");
        }
        if (e instanceof WorkspaceException.Unavailable) {
            String id = correlationId();
            LOG.log(System.Logger.Level.ERROR, "service unavailable [" + id + "]", e.getCause());
            write(res, status(e), e.code(), e.getMessage() + " (reference " + id + ")");
            return;
        }
        write(res, status(e), e.code(), e.getMessage());
    }

    private void http(ServerRequest req, ServerResponse res, HttpException e) {
        int code = e.status().code();
        switch (code) {
            case 400 -> write(res, e.status(), ErrorCodes.VALIDATION_FAILED, "the request is malformed");
            case 404 -> write(res, e.status(), ErrorCodes.NOT_FOUND, "not found");
            case 413 -> write(res, e.status(), ErrorCodes.PAYLOAD_TOO_LARGE, "the request body is too large");
            case 415 -> write(res, e.status(), ErrorCodes.UNSUPPORTED_MEDIA_TYPE, "unsupported media type");
            default -> unexpected(req, res, e);
        }
    }

    private void unexpected(ServerRequest req, ServerResponse res, Throwable e) {
        String id = correlationId();
        LOG.log(System.Logger.Level.ERROR, "unexpected error on " + req.prologue().method().text() + " "
                + req.path().path() + " [" + id + "]", e);
        write(res, Status.INTERNAL_SERVER_ERROR_500, ErrorCodes.INTERNAL_ERROR,
                "internal error (reference " + id + ")");
    }

    /** Writes an envelope (used by handlers that answer errors themselves, such as filters). */
    public void write(ServerResponse res, Status status, String code, String message) {
        res.status(status);
        res.header(HeaderValues.CONTENT_TYPE_JSON);
        res.header(HeaderNames.CACHE_CONTROL, "no-store");
        res.send(json.write(envelope(code, message)));
    }

    public static Map<String, Object> envelope(String code, String message) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", code);
        error.put("message", message);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("success", false);
        body.put("error", error);
        return body;
    }

    /** Envelopes for failures Helidon answers before routing (bad request line, oversize headers or body). */
    public DirectHandlers directHandlers() {
        DirectHandler handler = (request, eventType, status, headers, message) -> {
            String code = switch (status.code()) {
                case 413 -> ErrorCodes.PAYLOAD_TOO_LARGE;
                case 431 -> ErrorCodes.HEADERS_TOO_LARGE;
                case 403 -> ErrorCodes.HOST_REJECTED;
                case 500 -> ErrorCodes.INTERNAL_ERROR;
                default -> ErrorCodes.VALIDATION_FAILED;
            };
            String text = switch (status.code()) {
                case 413 -> "the request body is too large";
                case 431 -> "the request headers are too large";
                case 500 -> "internal error";
                default -> "the request is malformed";
            };
            headers.set(HeaderValues.CONTENT_TYPE_JSON);
            return DirectHandler.TransportResponse.builder()
                    .status(status)
                    .headers(headers)
                    .entity(json.write(envelope(code, text)))
                    .build();
        };
        DirectHandlers.Builder b = DirectHandlers.builder();
        for (DirectHandler.EventType t : DirectHandler.EventType.values()) {
            b.addHandler(t, handler);
        }
        return b.build();
    }

    private static String correlationId() {
        return UUID.randomUUID().toString().substring(0, 8);
    }
}
