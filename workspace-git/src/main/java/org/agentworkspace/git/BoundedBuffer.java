package org.agentworkspace.git;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Collects at most {@code limit} bytes; the first byte past it stops the writer with {@link LimitReached}, so a
 * huge diff is never formatted in full.
 */
final class BoundedBuffer extends OutputStream {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final long limit;
    private boolean truncated;

    BoundedBuffer(long limit) {
        this.limit = limit;
    }

    /** Thrown out of {@link #write} when the limit is passed. */
    static final class LimitReached extends IOException {
        private static final long serialVersionUID = 1L;

        LimitReached() {
            super("output limit reached", null);
        }
    }

    @Override
    public void write(int b) throws IOException {
        if (bytes.size() >= limit) {
            truncated = true;
            throw new LimitReached();
        }
        bytes.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        long room = limit - bytes.size();
        if (len > room) {
            bytes.write(b, off, (int) Math.max(0, room));
            truncated = true;
            throw new LimitReached();
        }
        bytes.write(b, off, len);
    }

    boolean truncated() {
        return truncated;
    }

    /** The text, cut after the last whole line when truncated; invalid UTF-8 becomes U+FFFD. */
    String text() {
        byte[] all = bytes.toByteArray();
        int end = all.length;
        if (truncated) {
            int lastNewline = -1;
            for (int i = all.length - 1; i >= 0; i--) {
                if (all[i] == '\n') {
                    lastNewline = i;
                    break;
                }
            }
            end = lastNewline + 1;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE).decode(ByteBuffer.wrap(all, 0, end)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new IllegalStateException(e);
        }
    }
}
