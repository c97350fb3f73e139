BEGIN { for (i = 0; i < n; i++) printf "{\"role\":\"assistant\",\"content\":\"tok-%d \"}\n", i }
