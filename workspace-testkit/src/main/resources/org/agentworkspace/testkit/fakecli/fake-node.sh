#!/bin/sh
# A fake node: prints the version from npm_config_fake_node_version (default v20.20.2).
case "${1:-}" in
  --version) echo "${npm_config_fake_node_version:-v20.20.2}"; exit 0 ;;
esac
exit 0
