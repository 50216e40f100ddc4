# The autopilot's image (docs/autopilot.md, packaging/k8s/autopilot.yaml): the static binary
# that scripts/release.sh built and checked, alone on an empty base, run as a non-root user.
#   scripts/release.sh && docker build -t memberctl .
FROM scratch
COPY dist/memberctl-*-linux-amd64 /usr/bin/memberctl
# glibc's static resolver reads this: /etc/hosts first, then DNS.
COPY packaging/nsswitch.conf /etc/nsswitch.conf
USER 65532:65532
ENTRYPOINT ["/usr/bin/memberctl"]
CMD ["--help"]
