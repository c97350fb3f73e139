package org.agentworkspace.api.files;

import java.util.Objects;

/**
 * A file read through the API. The encoding rule: the file is returned as {@link ContentEncoding#UTF_8} when its
 * first 8 KiB contain no NUL byte and all of it is valid UTF-8; otherwise as {@link ContentEncoding#BASE64}.
 *
 * @param content the text or the base64 of the bytes
 * @param encoding how {@code content} is encoded
 */
public record FileContent(String content, ContentEncoding encoding) {
    public FileContent {
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(encoding, "encoding");
    }
}
