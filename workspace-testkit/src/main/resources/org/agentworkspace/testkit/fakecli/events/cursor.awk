BEGIN { for (i = 0; i < n; i++) printf "{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"tok-%d \"}]},\"session_id\":\"%s\"}\n", i, sid }
