package org.agentworkspace.server.ws;

import java.nio.charset.StandardCharsets;

import io.helidon.websocket.WsCloseCodes;

/**
 * Assembles a client's text messages from their frames and enforces the two inbound limits of a server WebSocket:
 * a message larger than {@code maxBytes} (counted in UTF-8) closes the socket with 1009, more than
 * {@code maxPerSecond} messages in one second with 1008. Used by one socket's listener thread.
 */
public final class InboundMessages {
    private final int maxBytes;
    private final int maxPerSecond;
    private final SocketPump pump;
    private final StringBuilder partial = new StringBuilder();
    private long windowStart = System.nanoTime();
    private int windowCount;

    public InboundMessages(int maxBytes, int maxPerSecond, SocketPump pump) {
        this.maxBytes = maxBytes;
        this.maxPerSecond = maxPerSecond;
        this.pump = pump;
    }

    /**
     * Takes one frame of a text message.
     *
     * @return the whole message once its last frame arrived; null while more frames are due, or when a limit closed
     *         the socket
     */
    public String accept(String text, boolean last) {
        if (partial.length() + text.length() > maxBytes
                || (partial.length() + text.getBytes(StandardCharsets.UTF_8).length) > maxBytes) {
            partial.setLength(0);
            pump.closeWith(WsCloseCodes.TOO_BIG, "message larger than " + maxBytes + " bytes");
            return null;
        }
        partial.append(text);
        if (!last) {
            return null;
        }
        long now = System.nanoTime();
        if (now - windowStart > 1_000_000_000L) {
            windowStart = now;
            windowCount = 0;
        }
        if (++windowCount > maxPerSecond) {
            partial.setLength(0);
            pump.closeWith(WsCloseCodes.VIOLATED_POLICY, "more than " + maxPerSecond + " messages a second");
            return null;
        }
        String message = partial.toString();
        partial.setLength(0);
        return message;
    }
}
