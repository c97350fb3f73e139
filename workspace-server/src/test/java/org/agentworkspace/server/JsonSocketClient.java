package org.agentworkspace.server;

import java.net.http.WebSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A JDK WebSocket client for the server's JSON-text sockets ({@code /ws}, {@code /shell}): assembles each message from
 * its frames, queues it parsed, records the close code (-1 on an error), and sends JSON.
 */
public class JsonSocketClient implements WebSocket.Listener {
    public final LinkedBlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
    public final CompletableFuture<Integer> closed = new CompletableFuture<>();
    private final StringBuilder partial = new StringBuilder();
    public WebSocket ws;

    @Override
    public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
        partial.append(data);
        if (last) {
            try {
                messages.add(TestServer.JSON.readTree(partial.toString()));
            } catch (java.io.IOException e) {
                throw new AssertionError(e);
            }
            partial.setLength(0);
        }
        w.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket w, int code, String reason) {
        closed.complete(code);
        return null;
    }

    @Override
    public void onError(WebSocket w, Throwable error) {
        closed.complete(-1);
    }

    /** Sends {@code message} as one JSON text frame; fails the test when it cannot within 5 s. */
    public void send(Object message) {
        try {
            ws.sendText(TestServer.JSON.writeValueAsString(message), true).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("send failed; received " + messages + ", closed " + closed.getNow(null), e);
        }
    }
}
