package org.agentworkspace.api.files;

/** How {@link FileContent#content()} is encoded; {@link #wireName()} is the spec's value. */
public enum ContentEncoding {
    /** The content is the file's bytes decoded as UTF-8 (the bytes were valid UTF-8). */
    UTF_8("utf-8"),
    /** The content is the file's bytes in standard base64 (RFC 4648, with padding). */
    BASE64("base64");

    private final String wireName;

    ContentEncoding(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }
}
