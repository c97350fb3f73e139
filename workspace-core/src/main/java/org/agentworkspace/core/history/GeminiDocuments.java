package org.agentworkspace.core.history;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.function.Consumer;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Streams a whole-document chat ({@code {sessionId, projectHash, startTime, lastUpdated, summary?, kind?,
 * messages:[…]}}, written by older gemini and qwen CLIs, which rewrite the whole file) message by message with
 * Jackson's streaming parser: only one message object is in memory at a time. The document has no append-only part,
 * so every read delivers all messages; a read at a non-zero offset first calls {@link HistorySink#reset()}. A
 * document cut short (the CLI is rewriting it) is reported as a partial tail and the offset is not advanced; any
 * other damage ends the read there and counts one corrupt record.
 */
final class GeminiDocuments {
    private GeminiDocuments() {
    }

    static ReadResult read(ReadContext ctx, long offset, Consumer<ReadContext> prime)
            throws IOException {
        prime.accept(ctx);
        if (offset > 0) {
            ctx.reset();
        }
        long records = 0;
        long corrupt = 0;
        boolean partial = false;
        long size = Files.size(ctx.file.path());
        try (InputStream in = Files.newInputStream(ctx.file.path()); JsonParser p = Json.FACTORY.createParser(in)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new JsonParseException(p, "chat document is not a JSON object");
            }
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                switch (field) {
                    case "messages" -> {
                        if (v != JsonToken.START_ARRAY) {
                            p.skipChildren();
                            break;
                        }
                        while (p.nextToken() == JsonToken.START_OBJECT) {
                            long at = p.currentTokenLocation().getByteOffset();
                            JsonNode msg = Json.readObject(p, null);
                            records++;
                            GeminiMessages.emit(ctx, msg, at);
                        }
                    }
                    case "sessionId" -> ctx.facts.sessionId(p.getValueAsString());
                    case "startTime", "lastUpdated" -> ctx.facts.activity(Json.instant(Json.MAPPER.readTree(p)));
                    case "summary" -> ctx.facts.title(p.getValueAsString(), 2);
                    case "kind" -> {
                        String kind = p.getValueAsString();
                        if (kind != null && !"main".equals(kind)) {
                            ctx.facts.subagent = true;
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            if (t != JsonToken.END_OBJECT) {
                throw new JsonParseException(p, "unterminated chat document");
            }
        } catch (JsonEOFException e) {
            partial = true;
        } catch (StreamReadException | RuntimeException e) {
            corrupt++;
        }
        return new ReadResult(partial ? offset : size, ctx.facts.build(), records, corrupt, 0, partial);
    }
}
