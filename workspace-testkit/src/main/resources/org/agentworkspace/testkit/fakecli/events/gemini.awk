BEGIN { for (i = 0; i < n; i++) printf "{\"type\":\"message\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"role\":\"assistant\",\"content\":\"tok-%d \",\"delta\":true}\n", i }
