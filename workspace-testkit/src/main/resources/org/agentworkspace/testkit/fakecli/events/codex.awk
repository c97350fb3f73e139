BEGIN { for (i = 0; i < n; i++) printf "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_%d\",\"type\":\"agent_message\",\"text\":\"tok-%d \"}}\n", i, i }
