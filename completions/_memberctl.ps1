
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'memberctl' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'memberctl'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'memberctl' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('member', 'member', [CompletionResultType]::ParameterValue, 'List, add, promote, remove, update members and show their status')
            [CompletionResult]::new('node', 'node', [CompletionResultType]::ParameterValue, 'Run a member of the bundled Raft engine (serves etcd''s API)')
            [CompletionResult]::new('cluster', 'cluster', [CompletionResultType]::ParameterValue, 'A local test cluster of bundled-engine nodes, to rehearse changes')
            [CompletionResult]::new('autopilot', 'autopilot', [CompletionResultType]::ParameterValue, 'Keep watch on the cluster: replace dead voters with a standby learner, prune stuck learners; one autopilot acts per cluster')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Save, check and restore snapshots of a member''s state')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print the shell completion script for SHELL')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memberctl;member' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the members of the cluster')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a member, after checking its peer URLs (prefer --learner)')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Promote a learner to a voter once it has caught up with the leader')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove a member, unless the rest could not form a quorum')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Remove learners that never started or stand still (and, with --dead-voters, dead voters), one at a time')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a member''s peer URLs, after checking them')
            [CompletionResult]::new('replace', 'replace', [CompletionResultType]::ParameterValue, 'Replace a member in the order the cluster calls for: a dead one removed first, then the new one added, started, caught up and promoted; a live one replaced add-first')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Reach a target membership (the voters wanted) safely, one step at a time; run it again to resume')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show each member''s reachability, raft term, index, applied index, lag and version, and the fault tolerance')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check whether the cluster can take a change now (the pre-flight checks every change runs); changes nothing')
            [CompletionResult]::new('move-leader', 'move-leader', [CompletionResultType]::ParameterValue, 'Hand leadership to another voter (by default the most caught-up one)')
            [CompletionResult]::new('joint', 'joint', [CompletionResultType]::ParameterValue, 'Several changes at once through joint consensus (memberctl engine only)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memberctl;member;list' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;member;add' {
            [CompletionResult]::new('--peer-urls', '--peer-urls', [CompletionResultType]::ParameterName, 'The peer URLs to give the member, comma-separated (scheme://host:port)')
            [CompletionResult]::new('--skip-check', '--skip-check', [CompletionResultType]::ParameterName, 'Pass this pre-flight check knowingly, saying so (repeatable)')
            [CompletionResult]::new('--link-bandwidth', '--link-bandwidth', [CompletionResultType]::ParameterName, 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster''s --link, else measured from the leader''s past snapshot sends, else 100 MB/s as etcd assumes]')
            [CompletionResult]::new('--snapshot-count', '--snapshot-count', [CompletionResultType]::ParameterName, 'The members'' --snapshot-count, for the catch-up check [default: the server version''s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]')
            [CompletionResult]::new('--peer-cert', '--peer-cert', [CompletionResultType]::ParameterName, 'The peer certificate the new member will be started with (its --peer-cert-file, PEM): checked before anything is sent (names, CA, key usage, key, dates)')
            [CompletionResult]::new('--peer-key', '--peer-key', [CompletionResultType]::ParameterName, 'The private key of --peer-cert (the new member''s --peer-key-file, PEM)')
            [CompletionResult]::new('--peer-trusted-ca', '--peer-trusted-ca', [CompletionResultType]::ParameterName, 'The CA the members trust on their peer ports (their --peer-trusted-ca-file, PEM) [default: the issuer of the certificates the members present]')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--learner', '--learner', [CompletionResultType]::ParameterName, 'Add as a non-voting learner (the safe way: promote it once caught up)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Check everything and print the plan; change nothing')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;member;promote' {
            [CompletionResult]::new('--stable-for', '--stable-for', [CompletionResultType]::ParameterName, 'Promote only once the learner has met the readiness rule without a break for this long (a sample that is not ready starts it again)')
            [CompletionResult]::new('--skip-check', '--skip-check', [CompletionResultType]::ParameterName, 'Pass this pre-flight check knowingly, saying so (repeatable)')
            [CompletionResult]::new('--link-bandwidth', '--link-bandwidth', [CompletionResultType]::ParameterName, 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster''s --link, else measured from the leader''s past snapshot sends, else 100 MB/s as etcd assumes]')
            [CompletionResult]::new('--snapshot-count', '--snapshot-count', [CompletionResultType]::ParameterName, 'The members'' --snapshot-count, for the catch-up check [default: the server version''s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for the learner to start, catch up and be promoted')
            [CompletionResult]::new('--poll-interval', '--poll-interval', [CompletionResultType]::ParameterName, 'How often to poll the learner''s and the leader''s progress')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'Promote at once instead of waiting for the learner to catch up')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;member;remove' {
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for leadership to move, and for a learner to promote that was named before it started (a member publishes its name once it runs)')
            [CompletionResult]::new('--skip-check', '--skip-check', [CompletionResultType]::ParameterName, 'Pass this pre-flight check knowingly, saying so (repeatable)')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Check everything and print the plan; change nothing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Remove even if the remaining reachable voters could not form a quorum')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;member;prune' {
            [CompletionResult]::new('--stalled-for', '--stalled-for', [CompletionResultType]::ParameterName, 'Watch the members this long first: a started learner whose index stands still behind the leader''s all along goes (0s: only learners that never started go, at once)')
            [CompletionResult]::new('--poll-interval', '--poll-interval', [CompletionResultType]::ParameterName, 'How often to look at every member while watching')
            [CompletionResult]::new('--min-voters', '--min-voters', [CompletionResultType]::ParameterName, 'The fewest voters to leave when removing dead voters (at least 3, which can still lose one)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for leadership to move, and for a learner to promote that was named before it started (a member publishes its name once it runs)')
            [CompletionResult]::new('--skip-check', '--skip-check', [CompletionResultType]::ParameterName, 'Pass this pre-flight check knowingly, saying so (repeatable)')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--dead-voters', '--dead-voters', [CompletionResultType]::ParameterName, 'Also remove voters that answer nothing for --stalled-for while the leader has lost them too')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'List what would be removed and why; change nothing')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;member;update' {
            [CompletionResult]::new('--peer-urls', '--peer-urls', [CompletionResultType]::ParameterName, 'The peer URLs to give the member, comma-separated (scheme://host:port)')
            [CompletionResult]::new('--skip-check', '--skip-check', [CompletionResultType]::ParameterName, 'Pass this pre-flight check knowingly, saying so (repeatable)')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;member;replace' {
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The new member''s name')
            [CompletionResult]::new('--peer-urls', '--peer-urls', [CompletionResultType]::ParameterName, 'The peer URLs to give the member, comma-separated (scheme://host:port)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for the learner to start, catch up and be promoted')
            [CompletionResult]::new('--poll-interval', '--poll-interval', [CompletionResultType]::ParameterName, 'How often to poll the learner''s and the leader''s progress')
            [CompletionResult]::new('--skip-check', '--skip-check', [CompletionResultType]::ParameterName, 'Pass this pre-flight check knowingly, saying so (repeatable)')
            [CompletionResult]::new('--link-bandwidth', '--link-bandwidth', [CompletionResultType]::ParameterName, 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster''s --link, else measured from the leader''s past snapshot sends, else 100 MB/s as etcd assumes]')
            [CompletionResult]::new('--snapshot-count', '--snapshot-count', [CompletionResultType]::ParameterName, 'The members'' --snapshot-count, for the catch-up check [default: the server version''s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]')
            [CompletionResult]::new('--peer-cert', '--peer-cert', [CompletionResultType]::ParameterName, 'The peer certificate the new member will be started with (its --peer-cert-file, PEM): checked before anything is sent (names, CA, key usage, key, dates)')
            [CompletionResult]::new('--peer-key', '--peer-key', [CompletionResultType]::ParameterName, 'The private key of --peer-cert (the new member''s --peer-key-file, PEM)')
            [CompletionResult]::new('--peer-trusted-ca', '--peer-trusted-ca', [CompletionResultType]::ParameterName, 'The CA the members trust on their peer ports (their --peer-trusted-ca-file, PEM) [default: the issuer of the certificates the members present]')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Check everything and print the plan with quorum and fault tolerance per step, and the rule that chose its order; change nothing')
            [CompletionResult]::new('--start-local', '--start-local', [CompletionResultType]::ParameterName, 'Start the new member on the local test cluster (as `cluster start-node` does)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;member;apply' {
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'The voters wanted, as NAME=PEER_URL, comma-separated (repeatable)')
            [CompletionResult]::new('--target-file', '--target-file', [CompletionResultType]::ParameterName, 'The voters wanted, from a file: one NAME=URL[,URL...] a line, or JSON {"members":[{"name","peer_urls"}]}')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for the learner to start, catch up and be promoted')
            [CompletionResult]::new('--poll-interval', '--poll-interval', [CompletionResultType]::ParameterName, 'How often to poll the learner''s and the leader''s progress')
            [CompletionResult]::new('--skip-check', '--skip-check', [CompletionResultType]::ParameterName, 'Pass this pre-flight check knowingly, saying so (repeatable)')
            [CompletionResult]::new('--link-bandwidth', '--link-bandwidth', [CompletionResultType]::ParameterName, 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster''s --link, else measured from the leader''s past snapshot sends, else 100 MB/s as etcd assumes]')
            [CompletionResult]::new('--snapshot-count', '--snapshot-count', [CompletionResultType]::ParameterName, 'The members'' --snapshot-count, for the catch-up check [default: the server version''s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Check everything and print the plan with voters, quorum and fault tolerance after each step; change nothing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Allow a target of one member when the cluster has more')
            [CompletionResult]::new('--start-local', '--start-local', [CompletionResultType]::ParameterName, 'Start new members on the local test cluster (as `cluster start-node` does)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;member;status' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;member;check' {
            [CompletionResult]::new('--for', '--for', [CompletionResultType]::ParameterName, 'The change to check for (default: none in particular)')
            [CompletionResult]::new('--link-bandwidth', '--link-bandwidth', [CompletionResultType]::ParameterName, 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster''s --link, else measured from the leader''s past snapshot sends, else 100 MB/s as etcd assumes]')
            [CompletionResult]::new('--snapshot-count', '--snapshot-count', [CompletionResultType]::ParameterName, 'The members'' --snapshot-count, for the catch-up check [default: the server version''s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]')
            [CompletionResult]::new('--peer-urls', '--peer-urls', [CompletionResultType]::ParameterName, 'The new member''s peer URLs, for the peer-tls check of --peer-cert (comma-separated)')
            [CompletionResult]::new('--peer-cert', '--peer-cert', [CompletionResultType]::ParameterName, 'The peer certificate the new member will be started with (its --peer-cert-file, PEM): checked before anything is sent (names, CA, key usage, key, dates)')
            [CompletionResult]::new('--peer-key', '--peer-key', [CompletionResultType]::ParameterName, 'The private key of --peer-cert (the new member''s --peer-key-file, PEM)')
            [CompletionResult]::new('--peer-trusted-ca', '--peer-trusted-ca', [CompletionResultType]::ParameterName, 'The CA the members trust on their peer ports (their --peer-trusted-ca-file, PEM) [default: the issuer of the certificates the members present]')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;member;move-leader' {
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for leadership to move, and for a learner to promote that was named before it started (a member publishes its name once it runs)')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;member;joint' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('enter', 'enter', [CompletionResultType]::ParameterValue, 'Enter a joint configuration with several changes in one step')
            [CompletionResult]::new('leave', 'leave', [CompletionResultType]::ParameterValue, 'Leave the joint configuration (the new configuration takes over alone)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the configuration: voters (incoming and outgoing), learners, learners-next')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memberctl;member;joint;enter' {
            [CompletionResult]::new('--add-learner', '--add-learner', [CompletionResultType]::ParameterName, 'Add a new learner, as NAME=URL[,URL...] (repeatable)')
            [CompletionResult]::new('--promote', '--promote', [CompletionResultType]::ParameterName, 'Promote a caught-up learner to voter (repeatable)')
            [CompletionResult]::new('--demote', '--demote', [CompletionResultType]::ParameterName, 'Demote a voter to learner (repeatable)')
            [CompletionResult]::new('--remove', '--remove', [CompletionResultType]::ParameterName, 'Remove a member (repeatable)')
            [CompletionResult]::new('--skip-check', '--skip-check', [CompletionResultType]::ParameterName, 'Pass this pre-flight check knowingly, saying so (repeatable)')
            [CompletionResult]::new('--link-bandwidth', '--link-bandwidth', [CompletionResultType]::ParameterName, 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster''s --link, else measured from the leader''s past snapshot sends, else 100 MB/s as etcd assumes]')
            [CompletionResult]::new('--snapshot-count', '--snapshot-count', [CompletionResultType]::ParameterName, 'The members'' --snapshot-count, for the catch-up check [default: the server version''s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for the learner to start, catch up and be promoted')
            [CompletionResult]::new('--poll-interval', '--poll-interval', [CompletionResultType]::ParameterName, 'How often to poll the learner''s and the leader''s progress')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Check everything and print the plan (C_old, C_old∧C_new, C_new); change nothing')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Promote learners even if they have not caught up')
            [CompletionResult]::new('--no-wait', '--no-wait', [CompletionResultType]::ParameterName, 'Refuse at once (rule 6) a learner to promote that has not caught up, instead of waiting for it')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;member;joint;leave' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;member;joint;status' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;member;joint;help' {
            [CompletionResult]::new('enter', 'enter', [CompletionResultType]::ParameterValue, 'Enter a joint configuration with several changes in one step')
            [CompletionResult]::new('leave', 'leave', [CompletionResultType]::ParameterValue, 'Leave the joint configuration (the new configuration takes over alone)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the configuration: voters (incoming and outgoing), learners, learners-next')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memberctl;member;joint;help;enter' {
            break
        }
        'memberctl;member;joint;help;leave' {
            break
        }
        'memberctl;member;joint;help;status' {
            break
        }
        'memberctl;member;joint;help;help' {
            break
        }
        'memberctl;member;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the members of the cluster')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a member, after checking its peer URLs (prefer --learner)')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Promote a learner to a voter once it has caught up with the leader')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove a member, unless the rest could not form a quorum')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Remove learners that never started or stand still (and, with --dead-voters, dead voters), one at a time')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a member''s peer URLs, after checking them')
            [CompletionResult]::new('replace', 'replace', [CompletionResultType]::ParameterValue, 'Replace a member in the order the cluster calls for: a dead one removed first, then the new one added, started, caught up and promoted; a live one replaced add-first')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Reach a target membership (the voters wanted) safely, one step at a time; run it again to resume')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show each member''s reachability, raft term, index, applied index, lag and version, and the fault tolerance')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check whether the cluster can take a change now (the pre-flight checks every change runs); changes nothing')
            [CompletionResult]::new('move-leader', 'move-leader', [CompletionResultType]::ParameterValue, 'Hand leadership to another voter (by default the most caught-up one)')
            [CompletionResult]::new('joint', 'joint', [CompletionResultType]::ParameterValue, 'Several changes at once through joint consensus (memberctl engine only)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memberctl;member;help;list' {
            break
        }
        'memberctl;member;help;add' {
            break
        }
        'memberctl;member;help;promote' {
            break
        }
        'memberctl;member;help;remove' {
            break
        }
        'memberctl;member;help;prune' {
            break
        }
        'memberctl;member;help;update' {
            break
        }
        'memberctl;member;help;replace' {
            break
        }
        'memberctl;member;help;apply' {
            break
        }
        'memberctl;member;help;status' {
            break
        }
        'memberctl;member;help;check' {
            break
        }
        'memberctl;member;help;move-leader' {
            break
        }
        'memberctl;member;help;joint' {
            [CompletionResult]::new('enter', 'enter', [CompletionResultType]::ParameterValue, 'Enter a joint configuration with several changes in one step')
            [CompletionResult]::new('leave', 'leave', [CompletionResultType]::ParameterValue, 'Leave the joint configuration (the new configuration takes over alone)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the configuration: voters (incoming and outgoing), learners, learners-next')
            break
        }
        'memberctl;member;help;joint;enter' {
            break
        }
        'memberctl;member;help;joint;leave' {
            break
        }
        'memberctl;member;help;joint;status' {
            break
        }
        'memberctl;member;help;help' {
            break
        }
        'memberctl;node' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run one member of an embedded-engine cluster (flags as etcd''s)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memberctl;node;run' {
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'This member''s name')
            [CompletionResult]::new('--data-dir', '--data-dir', [CompletionResultType]::ParameterName, 'Directory for the member''s data (etcd''s default: NAME.etcd)')
            [CompletionResult]::new('--listen-client-urls', '--listen-client-urls', [CompletionResultType]::ParameterName, 'URL to listen on for clients')
            [CompletionResult]::new('--advertise-client-urls', '--advertise-client-urls', [CompletionResultType]::ParameterName, 'Client URLs to advertise to the cluster')
            [CompletionResult]::new('--listen-metrics-urls', '--listen-metrics-urls', [CompletionResultType]::ParameterName, 'Extra plain-HTTP URLs that serve /metrics and the health checks only (the client URL serves them too)')
            [CompletionResult]::new('--listen-peer-urls', '--listen-peer-urls', [CompletionResultType]::ParameterName, 'URL to listen on for peers')
            [CompletionResult]::new('--initial-advertise-peer-urls', '--initial-advertise-peer-urls', [CompletionResultType]::ParameterName, 'Peer URLs to advertise to the cluster')
            [CompletionResult]::new('--initial-cluster', '--initial-cluster', [CompletionResultType]::ParameterName, 'The initial members, as name=peer-url pairs (etcd''s default: this member alone, NAME=each --initial-advertise-peer-urls)')
            [CompletionResult]::new('--initial-cluster-state', '--initial-cluster-state', [CompletionResultType]::ParameterName, 'new to bootstrap a cluster, existing to join one')
            [CompletionResult]::new('--initial-cluster-token', '--initial-cluster-token', [CompletionResultType]::ParameterName, 'Token that keeps IDs of different clusters apart')
            [CompletionResult]::new('--heartbeat-interval', '--heartbeat-interval', [CompletionResultType]::ParameterName, 'Time between heartbeats, in milliseconds')
            [CompletionResult]::new('--election-timeout', '--election-timeout', [CompletionResultType]::ParameterName, 'Election timeout, in milliseconds')
            [CompletionResult]::new('--snapshot-count', '--snapshot-count', [CompletionResultType]::ParameterName, 'Compact the raft log every this many applied entries')
            [CompletionResult]::new('--max-learners', '--max-learners', [CompletionResultType]::ParameterName, 'Most learners the cluster may have at once')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Refuse writes that add data (etcd''s NOSPACE alarm) once the state-machine file would pass this many bytes; 0: etcd''s default, 2 GiB')
            [CompletionResult]::new('--corrupt-check-time', '--corrupt-check-time', [CompletionResultType]::ParameterName, 'How often the leader compares its key-value hash with each peer''s, raising the CORRUPT alarm for a member whose hash differs (0: never, etcd''s default)')
            [CompletionResult]::new('--grpc-keepalive-interval', '--grpc-keepalive-interval', [CompletionResultType]::ParameterName, 'How long a client connection may be idle before the server pings it (etcd''s default: 2h)')
            [CompletionResult]::new('--grpc-keepalive-timeout', '--grpc-keepalive-timeout', [CompletionResultType]::ParameterName, 'How long the server waits for a ping''s answer before it closes the connection (etcd''s default: 20s)')
            [CompletionResult]::new('--max-request-bytes', '--max-request-bytes', [CompletionResultType]::ParameterName, 'Largest write request the server takes, in bytes (etcd''s default: 1.5 MiB)')
            [CompletionResult]::new('--max-txn-ops', '--max-txn-ops', [CompletionResultType]::ParameterName, 'Most operations in one branch of a transaction')
            [CompletionResult]::new('--auto-compaction-mode', '--auto-compaction-mode', [CompletionResultType]::ParameterName, 'How --auto-compaction-retention counts: periodic (time) or revision')
            [CompletionResult]::new('--auto-compaction-retention', '--auto-compaction-retention', [CompletionResultType]::ParameterName, 'History the leader keeps when it compacts by itself: hours or a duration (periodic), revisions (revision); 0: no automatic compaction')
            [CompletionResult]::new('--cert-file', '--cert-file', [CompletionResultType]::ParameterName, 'Certificate for client connections (TLS on the client URLs)')
            [CompletionResult]::new('--key-file', '--key-file', [CompletionResultType]::ParameterName, 'Key of --cert-file')
            [CompletionResult]::new('--trusted-ca-file', '--trusted-ca-file', [CompletionResultType]::ParameterName, 'CA that signs client certificates')
            [CompletionResult]::new('--client-cert-auth', '--client-cert-auth', [CompletionResultType]::ParameterName, 'Require client certificates signed by --trusted-ca-file')
            [CompletionResult]::new('--client-crl-file', '--client-crl-file', [CompletionResultType]::ParameterName, 'Refuse client certificates this revocation list revokes (PEM or DER; needs --trusted-ca-file)')
            [CompletionResult]::new('--client-cert-allowed-hostname', '--client-cert-allowed-hostname', [CompletionResultType]::ParameterName, 'Accept only client certificates whose subjectAltNames name this host (needs --trusted-ca-file)')
            [CompletionResult]::new('--cipher-suites', '--cipher-suites', [CompletionResultType]::ParameterName, 'TLS 1.2 cipher suites the client and peer listeners offer, by Go''s names, comma-separated (default: all the engine has; TLS 1.3''s are always offered, as Go''s)')
            [CompletionResult]::new('--tls-min-version', '--tls-min-version', [CompletionResultType]::ParameterName, 'Lowest TLS version the listeners accept: TLS1.2 (default) or TLS1.3')
            [CompletionResult]::new('--tls-max-version', '--tls-max-version', [CompletionResultType]::ParameterName, 'Highest TLS version the listeners accept: TLS1.2 or TLS1.3 (default)')
            [CompletionResult]::new('--auto-tls', '--auto-tls', [CompletionResultType]::ParameterName, 'Without --cert-file/--key-file, serve the client URLs with a self-signed certificate made at start (kept in DATA-DIR/fixtures/client)')
            [CompletionResult]::new('--peer-auto-tls', '--peer-auto-tls', [CompletionResultType]::ParameterName, 'Without --peer-cert-file/--peer-key-file, serve and dial peers with a self-signed certificate made at start (DATA-DIR/fixtures/peer); peers'' certificates are then taken unverified, as etcd takes them')
            [CompletionResult]::new('--self-signed-cert-validity', '--self-signed-cert-validity', [CompletionResultType]::ParameterName, 'Years the certificates --auto-tls and --peer-auto-tls make last')
            [CompletionResult]::new('--peer-cert-file', '--peer-cert-file', [CompletionResultType]::ParameterName, 'Certificate for peer connections (served, and presented to peers)')
            [CompletionResult]::new('--peer-key-file', '--peer-key-file', [CompletionResultType]::ParameterName, 'Key of --peer-cert-file')
            [CompletionResult]::new('--peer-trusted-ca-file', '--peer-trusted-ca-file', [CompletionResultType]::ParameterName, 'CA that signs the peers'' certificates')
            [CompletionResult]::new('--peer-client-cert-auth', '--peer-client-cert-auth', [CompletionResultType]::ParameterName, 'Require peer certificates signed by --peer-trusted-ca-file')
            [CompletionResult]::new('--peer-crl-file', '--peer-crl-file', [CompletionResultType]::ParameterName, 'Refuse peer certificates this revocation list revokes (PEM or DER; needs --peer-trusted-ca-file)')
            [CompletionResult]::new('--peer-cert-allowed-cn', '--peer-cert-allowed-cn', [CompletionResultType]::ParameterName, 'Accept only peer certificates with this common name (needs --peer-trusted-ca-file)')
            [CompletionResult]::new('--peer-cert-allowed-hostname', '--peer-cert-allowed-hostname', [CompletionResultType]::ParameterName, 'Accept only peer certificates whose subjectAltNames name this host (needs --peer-trusted-ca-file)')
            [CompletionResult]::new('--auth-token', '--auth-token', [CompletionResultType]::ParameterName, 'How Authenticate''s tokens are made: simple (etcd''s default: random tokens every member learns through raft) or jwt,priv-key=FILE,pub-key=FILE,sign-method=METHOD[,ttl=DURATION] (signed tokens any member checks with the public key; METHOD one of RS256/384/512, PS256/384/512, ES256/384, HS256/384/512 with priv-key the secret, EdDSA; pub-key alone checks tokens without issuing any; ttl 5m by default)')
            [CompletionResult]::new('--auth-token-ttl', '--auth-token-ttl', [CompletionResultType]::ParameterName, 'Seconds a simple token lives after its last use (0: etcd''s default, 300)')
            [CompletionResult]::new('--bcrypt-cost', '--bcrypt-cost', [CompletionResultType]::ParameterName, 'bcrypt''s cost for the passwords of users added or changed here (4 to 31; any other is taken as 10 with a warning, as etcd takes it)')
            [CompletionResult]::new('--initial-corrupt-check', '--initial-corrupt-check', [CompletionResultType]::ParameterName, 'Before serving, compare this member''s key-value hash with its peers'' at its revision; exit on a mismatch (etcd''s --experimental-initial-corrupt-check)')
            [CompletionResult]::new('--strict-reconfig-check', '--strict-reconfig-check', [CompletionResultType]::ParameterName, 'Refuse a membership change that would leave too few started voters or that the leader cannot reach every voter for (false: accept it, as etcd with --strict-reconfig-check=false)')
            [CompletionResult]::new('--max-concurrent-streams', '--max-concurrent-streams', [CompletionResultType]::ParameterName, 'Most concurrent gRPC streams per client connection (etcd''s default, math.MaxUint32: no limit)')
            [CompletionResult]::new('--watch-progress-notify-interval', '--watch-progress-notify-interval', [CompletionResultType]::ParameterName, 'How often an idle watch that asked for progress notifications gets one (etcd''s default: 10m)')
            [CompletionResult]::new('--force-new-cluster', '--force-new-cluster', [CompletionResultType]::ParameterName, 'etcd''s way back from a lost quorum: keep this member''s data and make it the cluster''s only member (then add the others back as new members)')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--fault-injection', '--fault-injection', [CompletionResultType]::ParameterName, 'Test clusters only: serve the fault-injection service (memberctl.v1.Fault) on the client and peer URLs, with which any client can make this node drop the raft traffic to and from chosen peers, as a network partition would, and heal it')
            [CompletionResult]::new('--fault-stale-reads', '--fault-stale-reads', [CompletionResultType]::ParameterName, 'Test clusters only, a deliberate bug: serve linearizable reads from this node''s state without asking the leader (ReadIndex), so they may be stale; for showing that the linearizability checker catches it')
            [CompletionResult]::new('--fault-ack-before-fsync', '--fault-ack-before-fsync', [CompletionResultType]::ParameterName, 'Test clusters only, a deliberate bug: acknowledge raft log writes before they are written and fsync''d (they are held in memory, as a disk''s volatile cache would hold them), so a kill loses acknowledged writes; for showing that the linearizability checker catches it')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;node;help' {
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run one member of an embedded-engine cluster (flags as etcd''s)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memberctl;node;help;run' {
            break
        }
        'memberctl;node;help;help' {
            break
        }
        'memberctl;cluster' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('up', 'up', [CompletionResultType]::ParameterValue, 'Start a local test cluster of embedded-engine nodes on loopback (or restart a stopped one)')
            [CompletionResult]::new('start-node', 'start-node', [CompletionResultType]::ParameterValue, 'Start the node of a member that `member add` has just added')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the local cluster''s nodes, processes and leader')
            [CompletionResult]::new('down', 'down', [CompletionResultType]::ParameterValue, 'Stop the local cluster''s node processes (only those it started)')
            [CompletionResult]::new('link', 'link', [CompletionResultType]::ParameterValue, 'Change the link between the members of a cluster started with `cluster up --link`: its settings, or a stall')
            [CompletionResult]::new('link-serve', 'link-serve', [CompletionResultType]::ParameterValue, 'Run the link model between the local cluster''s members (started by `cluster up --link`)')
            [CompletionResult]::new('chaos', 'chaos', [CompletionResultType]::ParameterValue, 'Inject seeded random faults into the local cluster for a while (kill -9, wipe, pause, link stalls, the acting autopilot killed), one JSON line per fault''s start and end')
            [CompletionResult]::new('rehearse', 'rehearse', [CompletionResultType]::ParameterValue, 'Rehearse a membership change on the local cluster under a steady writer, and draw what it did: report.html (charts, summary) and report.json')
            [CompletionResult]::new('recover', 'recover', [CompletionResultType]::ParameterValue, 'Bring back a local cluster that lost its quorum: restart the best survivor with --force-new-cluster, then add the others back as new members')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memberctl;cluster;up' {
            [CompletionResult]::new('--nodes', '--nodes', [CompletionResultType]::ParameterName, 'Number of members')
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]')
            [CompletionResult]::new('--max-learners', '--max-learners', [CompletionResultType]::ParameterName, 'Most learners the cluster may have at once')
            [CompletionResult]::new('--snapshot-count', '--snapshot-count', [CompletionResultType]::ParameterName, 'Compact each node''s raft log every this many applied entries')
            [CompletionResult]::new('--quota-backend-bytes', '--quota-backend-bytes', [CompletionResultType]::ParameterName, 'Refuse writes that add data (etcd''s NOSPACE alarm) once a node''s state-machine file would pass this many bytes; 0: etcd''s default, 2 GiB')
            [CompletionResult]::new('--heartbeat-interval', '--heartbeat-interval', [CompletionResultType]::ParameterName, 'Time between heartbeats of every node, in milliseconds')
            [CompletionResult]::new('--election-timeout', '--election-timeout', [CompletionResultType]::ParameterName, 'Election timeout of every node, in milliseconds')
            [CompletionResult]::new('--from-snapshot', '--from-snapshot', [CompletionResultType]::ParameterName, 'Start a new cluster holding the data of this snapshot file: `etcdctl snapshot save` of an etcd (3.4-3.7) or a memberctl snapshot; every node is restored from it')
            [CompletionResult]::new('--link', '--link', [CompletionResultType]::ParameterName, 'Put a link between every pair of members, both ways: round trip, bandwidth and queue, e.g. rtt=40ms,bandwidth=50mbit,queue=4mb; add shared=uplink for one queue per sending member instead of one per pair (shared=all: one for everyone), per-connection=SIZE for the most of a queue one connection may hold, so that connections take turns as on a sending host, instead of one FIFO as at a router (a rehearsal on the operator''s own link; kept across restarts, honoured by start-node)')
            [CompletionResult]::new('--etcd', '--etcd', [CompletionResultType]::ParameterName, 'Run the members on this etcd server binary (3.4-3.7, e.g. "$(command -v etcd)") instead of memberctl''s engine: a rehearsal on the operator''s own etcd (kept across restarts; --from-snapshot restores with the etcdutl or etcdctl beside it)')
            [CompletionResult]::new('--etcd-flag', '--etcd-flag', [CompletionResultType]::ParameterName, 'With --etcd: give every member this etcd flag too, after memberctl''s (repeatable; a flag and its value as one word: --etcd-flag=--auto-compaction-retention=1); the flags memberctl sets itself are refused')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--fault-injection', '--fault-injection', [CompletionResultType]::ParameterName, 'Test clusters only: start every node with --fault-injection (kept in the cluster''s state, so start-node and restarts use it too)')
            [CompletionResult]::new('--fault-stale-reads', '--fault-stale-reads', [CompletionResultType]::ParameterName, 'Test clusters only, a deliberate bug: start every node with --fault-stale-reads (local linearizable reads)')
            [CompletionResult]::new('--fault-ack-before-fsync', '--fault-ack-before-fsync', [CompletionResultType]::ParameterName, 'Test clusters only, a deliberate bug: start every node with --fault-ack-before-fsync (acknowledged log writes held in memory)')
            [CompletionResult]::new('--skip-hash-check', '--skip-hash-check', [CompletionResultType]::ParameterName, 'With --from-snapshot: restore an etcd database that has no SHA-256 trailer (copied from a data directory), unchecked')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;cluster;start-node' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]')
            [CompletionResult]::new('--peer-url', '--peer-url', [CompletionResultType]::ParameterName, 'Which added member, when several are waiting to start')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;cluster;status' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;cluster;down' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;cluster;link' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]')
            [CompletionResult]::new('--set', '--set', [CompletionResultType]::ParameterName, 'New settings for every member pair from now on, e.g. rtt=60ms,bandwidth=50mbit,queue=4mb')
            [CompletionResult]::new('--stall', '--stall', [CompletionResultType]::ParameterName, 'Deliver nothing for this long (nothing is lost: bytes wait), as a path that stalls')
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'With --stall: only the links to and from this node')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;cluster;link-serve' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;cluster;chaos' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]')
            [CompletionResult]::new('--seed', '--seed', [CompletionResultType]::ParameterName, 'The seed of every random draw: the same seed replays the same schedule [default: from the clock, printed on stderr]')
            [CompletionResult]::new('--duration', '--duration', [CompletionResultType]::ParameterName, 'How long to inject faults; those in progress end then')
            [CompletionResult]::new('--faults', '--faults', [CompletionResultType]::ParameterName, 'The faults to draw from, comma-separated [default: all; stall and slow only with a link]')
            [CompletionResult]::new('--max-concurrent', '--max-concurrent', [CompletionResultType]::ParameterName, 'The most faults in progress at once')
            [CompletionResult]::new('--every', '--every', [CompletionResultType]::ParameterName, 'The mean time between the starts of two faults')
            [CompletionResult]::new('--hold', '--hold', [CompletionResultType]::ParameterName, 'The longest a fault lasts (each lasts half to all of it)')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--break-quorum', '--break-quorum', [CompletionResultType]::ParameterName, 'Allow more voters down or cut off at once than the cluster can lose (its quorum goes)')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;cluster;rehearse' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]')
            [CompletionResult]::new('--writer-rate', '--writer-rate', [CompletionResultType]::ParameterName, 'Puts per second of the steady writer (N or N/s)')
            [CompletionResult]::new('--value-size', '--value-size', [CompletionResultType]::ParameterName, 'Bytes of each put''s value')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Directory for report.html and report.json (made if missing)')
            [CompletionResult]::new('--before', '--before', [CompletionResultType]::ParameterName, 'How long the writer runs before the change')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'How long the writer runs after the cluster settled')
            [CompletionResult]::new('--settle-timeout', '--settle-timeout', [CompletionResultType]::ParameterName, 'The longest wait for the cluster to settle after the change (one leader, every member answering, their indexes close)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'The longest the change may run (it is stopped then)')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;cluster;recover' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]')
            [CompletionResult]::new('--from', '--from', [CompletionResultType]::ParameterName, 'The survivor to recover from (default: the one with the most of the log)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to wait for each member added back to start and catch up')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;cluster;help' {
            [CompletionResult]::new('up', 'up', [CompletionResultType]::ParameterValue, 'Start a local test cluster of embedded-engine nodes on loopback (or restart a stopped one)')
            [CompletionResult]::new('start-node', 'start-node', [CompletionResultType]::ParameterValue, 'Start the node of a member that `member add` has just added')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the local cluster''s nodes, processes and leader')
            [CompletionResult]::new('down', 'down', [CompletionResultType]::ParameterValue, 'Stop the local cluster''s node processes (only those it started)')
            [CompletionResult]::new('link', 'link', [CompletionResultType]::ParameterValue, 'Change the link between the members of a cluster started with `cluster up --link`: its settings, or a stall')
            [CompletionResult]::new('link-serve', 'link-serve', [CompletionResultType]::ParameterValue, 'Run the link model between the local cluster''s members (started by `cluster up --link`)')
            [CompletionResult]::new('chaos', 'chaos', [CompletionResultType]::ParameterValue, 'Inject seeded random faults into the local cluster for a while (kill -9, wipe, pause, link stalls, the acting autopilot killed), one JSON line per fault''s start and end')
            [CompletionResult]::new('rehearse', 'rehearse', [CompletionResultType]::ParameterValue, 'Rehearse a membership change on the local cluster under a steady writer, and draw what it did: report.html (charts, summary) and report.json')
            [CompletionResult]::new('recover', 'recover', [CompletionResultType]::ParameterValue, 'Bring back a local cluster that lost its quorum: restart the best survivor with --force-new-cluster, then add the others back as new members')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memberctl;cluster;help;up' {
            break
        }
        'memberctl;cluster;help;start-node' {
            break
        }
        'memberctl;cluster;help;status' {
            break
        }
        'memberctl;cluster;help;down' {
            break
        }
        'memberctl;cluster;help;link' {
            break
        }
        'memberctl;cluster;help;link-serve' {
            break
        }
        'memberctl;cluster;help;chaos' {
            break
        }
        'memberctl;cluster;help;rehearse' {
            break
        }
        'memberctl;cluster;help;recover' {
            break
        }
        'memberctl;cluster;help;help' {
            break
        }
        'memberctl;autopilot' {
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Time between two looks at the cluster')
            [CompletionResult]::new('--heartbeat', '--heartbeat', [CompletionResultType]::ParameterName, 'A decision is printed when it changes; the same decision again only once this long (0: every look)')
            [CompletionResult]::new('--dead-after', '--dead-after', [CompletionResultType]::ParameterName, 'A voter unreachable this long, that the leader has lost too, is dead')
            [CompletionResult]::new('--standby', '--standby', [CompletionResultType]::ParameterName, 'The learners kept as standbys, by name (repeatable) [default: any started learner]')
            [CompletionResult]::new('--stable-for', '--stable-for', [CompletionResultType]::ParameterName, 'How long a standby must have been ready (caught up) without a break before it takes a dead voter''s place')
            [CompletionResult]::new('--min-voters', '--min-voters', [CompletionResultType]::ParameterName, 'The fewest voters a removal may leave (at least 3, which can still lose one)')
            [CompletionResult]::new('--voters', '--voters', [CompletionResultType]::ParameterName, 'The voters to keep: while fewer (a dead voter was removed without a ready standby), a ready standby is promoted [default: --min-voters, with --cleanup-dead only]')
            [CompletionResult]::new('--stalled-for', '--stalled-for', [CompletionResultType]::ParameterName, 'A started learner whose index stands still behind the leader''s this long is pruned, as `member prune` does')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'This autopilot''s name in the election among autopilots (key prefix memberctl/autopilot/) [default: HOST-PID]')
            [CompletionResult]::new('--lease-ttl', '--lease-ttl', [CompletionResultType]::ParameterName, 'The election lease''s time to live: how soon another autopilot takes over when this one dies')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long one action may wait (a standby''s catch-up, leadership moves)')
            [CompletionResult]::new('--listen-metrics', '--listen-metrics', [CompletionResultType]::ParameterName, 'Serve Prometheus metrics (/metrics) and a health check (/health) on this address, e.g. 127.0.0.1:9479')
            [CompletionResult]::new('--skip-check', '--skip-check', [CompletionResultType]::ParameterName, 'Pass this pre-flight check knowingly, saying so (repeatable)')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--cleanup-dead', '--cleanup-dead', [CompletionResultType]::ParameterName, 'Remove a dead voter even without a standby, while --min-voters remain')
            [CompletionResult]::new('--start-standby', '--start-standby', [CompletionResultType]::ParameterName, 'On the local test cluster: when no learner exists, add one and start it (`member add --learner` + `cluster start-node`)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Decide and report every decision; change nothing')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;snapshot' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('save', 'save', [CompletionResultType]::ParameterValue, 'Save a point-in-time copy of one member''s state to FILE (Maintenance.Snapshot; on etcd, etcd''s own format)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Check a snapshot file whole (memberctl''s, or etcd''s: its SHA-256 trailer) and show what it holds')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Create the data directory of a member of a new cluster from a snapshot file, memberctl''s or etcd''s (as `etcdctl snapshot restore`); start it with `node run` and the same flags')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memberctl;snapshot;save' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;snapshot;status' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;snapshot;restore' {
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The member''s name')
            [CompletionResult]::new('--data-dir', '--data-dir', [CompletionResultType]::ParameterName, 'The new data directory (must not exist, or be empty)')
            [CompletionResult]::new('--initial-cluster', '--initial-cluster', [CompletionResultType]::ParameterName, 'The initial members, as name=peer-url pairs')
            [CompletionResult]::new('--initial-advertise-peer-urls', '--initial-advertise-peer-urls', [CompletionResultType]::ParameterName, 'This member''s peer URLs')
            [CompletionResult]::new('--initial-cluster-token', '--initial-cluster-token', [CompletionResultType]::ParameterName, 'Token that keeps IDs of different clusters apart')
            [CompletionResult]::new('--bump-revision', '--bump-revision', [CompletionResultType]::ParameterName, 'Move the revision this far ahead of the snapshot''s (with --mark-compacted, as etcdutl''s): watchers and caches holding revisions of the old cluster see them compacted, not reused; restore every member with the same amount')
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--skip-hash-check', '--skip-hash-check', [CompletionResultType]::ParameterName, 'Restore an etcd database that has no SHA-256 trailer (copied from a data directory''s member/snap/db), unchecked')
            [CompletionResult]::new('--mark-compacted', '--mark-compacted', [CompletionResultType]::ParameterName, 'Mark the bumped revision compacted (with --bump-revision, as etcdutl''s): a read or watch from an earlier revision is answered "compacted"')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;snapshot;help' {
            [CompletionResult]::new('save', 'save', [CompletionResultType]::ParameterValue, 'Save a point-in-time copy of one member''s state to FILE (Maintenance.Snapshot; on etcd, etcd''s own format)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Check a snapshot file whole (memberctl''s, or etcd''s: its SHA-256 trailer) and show what it holds')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Create the data directory of a member of a new cluster from a snapshot file, memberctl''s or etcd''s (as `etcdctl snapshot restore`); start it with `node run` and the same flags')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memberctl;snapshot;help;save' {
            break
        }
        'memberctl;snapshot;help;status' {
            break
        }
        'memberctl;snapshot;help;restore' {
            break
        }
        'memberctl;snapshot;help;help' {
            break
        }
        'memberctl;completion' {
            [CompletionResult]::new('--endpoints', '--endpoints', [CompletionResultType]::ParameterName, 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]')
            [CompletionResult]::new('--dial-timeout', '--dial-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to an endpoint')
            [CompletionResult]::new('--command-timeout', '--command-timeout', [CompletionResultType]::ParameterName, 'How long one request may take (and how long to retry "unhealthy cluster")')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--write-out', '--write-out', [CompletionResultType]::ParameterName, 'Output format [default: table on a terminal, simple otherwise]')
            [CompletionResult]::new('--cacert', '--cacert', [CompletionResultType]::ParameterName, 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)')
            [CompletionResult]::new('--cert', '--cert', [CompletionResultType]::ParameterName, 'Client certificate for TLS, for servers that require one (with --key)')
            [CompletionResult]::new('--key', '--key', [CompletionResultType]::ParameterName, 'Client key for TLS (with --cert)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)')
            [CompletionResult]::new('--password', '--password', [CompletionResultType]::ParameterName, 'Password for authentication')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Encrypt but do not verify the servers'' certificates (test clusters only)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'memberctl;help' {
            [CompletionResult]::new('member', 'member', [CompletionResultType]::ParameterValue, 'List, add, promote, remove, update members and show their status')
            [CompletionResult]::new('node', 'node', [CompletionResultType]::ParameterValue, 'Run a member of the bundled Raft engine (serves etcd''s API)')
            [CompletionResult]::new('cluster', 'cluster', [CompletionResultType]::ParameterValue, 'A local test cluster of bundled-engine nodes, to rehearse changes')
            [CompletionResult]::new('autopilot', 'autopilot', [CompletionResultType]::ParameterValue, 'Keep watch on the cluster: replace dead voters with a standby learner, prune stuck learners; one autopilot acts per cluster')
            [CompletionResult]::new('snapshot', 'snapshot', [CompletionResultType]::ParameterValue, 'Save, check and restore snapshots of a member''s state')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print the shell completion script for SHELL')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'memberctl;help;member' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the members of the cluster')
            [CompletionResult]::new('add', 'add', [CompletionResultType]::ParameterValue, 'Add a member, after checking its peer URLs (prefer --learner)')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Promote a learner to a voter once it has caught up with the leader')
            [CompletionResult]::new('remove', 'remove', [CompletionResultType]::ParameterValue, 'Remove a member, unless the rest could not form a quorum')
            [CompletionResult]::new('prune', 'prune', [CompletionResultType]::ParameterValue, 'Remove learners that never started or stand still (and, with --dead-voters, dead voters), one at a time')
            [CompletionResult]::new('update', 'update', [CompletionResultType]::ParameterValue, 'Change a member''s peer URLs, after checking them')
            [CompletionResult]::new('replace', 'replace', [CompletionResultType]::ParameterValue, 'Replace a member in the order the cluster calls for: a dead one removed first, then the new one added, started, caught up and promoted; a live one replaced add-first')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Reach a target membership (the voters wanted) safely, one step at a time; run it again to resume')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show each member''s reachability, raft term, index, applied index, lag and version, and the fault tolerance')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check whether the cluster can take a change now (the pre-flight checks every change runs); changes nothing')
            [CompletionResult]::new('move-leader', 'move-leader', [CompletionResultType]::ParameterValue, 'Hand leadership to another voter (by default the most caught-up one)')
            [CompletionResult]::new('joint', 'joint', [CompletionResultType]::ParameterValue, 'Several changes at once through joint consensus (memberctl engine only)')
            break
        }
        'memberctl;help;member;list' {
            break
        }
        'memberctl;help;member;add' {
            break
        }
        'memberctl;help;member;promote' {
            break
        }
        'memberctl;help;member;remove' {
            break
        }
        'memberctl;help;member;prune' {
            break
        }
        'memberctl;help;member;update' {
            break
        }
        'memberctl;help;member;replace' {
            break
        }
        'memberctl;help;member;apply' {
            break
        }
        'memberctl;help;member;status' {
            break
        }
        'memberctl;help;member;check' {
            break
        }
        'memberctl;help;member;move-leader' {
            break
        }
        'memberctl;help;member;joint' {
            [CompletionResult]::new('enter', 'enter', [CompletionResultType]::ParameterValue, 'Enter a joint configuration with several changes in one step')
            [CompletionResult]::new('leave', 'leave', [CompletionResultType]::ParameterValue, 'Leave the joint configuration (the new configuration takes over alone)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the configuration: voters (incoming and outgoing), learners, learners-next')
            break
        }
        'memberctl;help;member;joint;enter' {
            break
        }
        'memberctl;help;member;joint;leave' {
            break
        }
        'memberctl;help;member;joint;status' {
            break
        }
        'memberctl;help;node' {
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run one member of an embedded-engine cluster (flags as etcd''s)')
            break
        }
        'memberctl;help;node;run' {
            break
        }
        'memberctl;help;cluster' {
            [CompletionResult]::new('up', 'up', [CompletionResultType]::ParameterValue, 'Start a local test cluster of embedded-engine nodes on loopback (or restart a stopped one)')
            [CompletionResult]::new('start-node', 'start-node', [CompletionResultType]::ParameterValue, 'Start the node of a member that `member add` has just added')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show the local cluster''s nodes, processes and leader')
            [CompletionResult]::new('down', 'down', [CompletionResultType]::ParameterValue, 'Stop the local cluster''s node processes (only those it started)')
            [CompletionResult]::new('link', 'link', [CompletionResultType]::ParameterValue, 'Change the link between the members of a cluster started with `cluster up --link`: its settings, or a stall')
            [CompletionResult]::new('link-serve', 'link-serve', [CompletionResultType]::ParameterValue, 'Run the link model between the local cluster''s members (started by `cluster up --link`)')
            [CompletionResult]::new('chaos', 'chaos', [CompletionResultType]::ParameterValue, 'Inject seeded random faults into the local cluster for a while (kill -9, wipe, pause, link stalls, the acting autopilot killed), one JSON line per fault''s start and end')
            [CompletionResult]::new('rehearse', 'rehearse', [CompletionResultType]::ParameterValue, 'Rehearse a membership change on the local cluster under a steady writer, and draw what it did: report.html (charts, summary) and report.json')
            [CompletionResult]::new('recover', 'recover', [CompletionResultType]::ParameterValue, 'Bring back a local cluster that lost its quorum: restart the best survivor with --force-new-cluster, then add the others back as new members')
            break
        }
        'memberctl;help;cluster;up' {
            break
        }
        'memberctl;help;cluster;start-node' {
            break
        }
        'memberctl;help;cluster;status' {
            break
        }
        'memberctl;help;cluster;down' {
            break
        }
        'memberctl;help;cluster;link' {
            break
        }
        'memberctl;help;cluster;link-serve' {
            break
        }
        'memberctl;help;cluster;chaos' {
            break
        }
        'memberctl;help;cluster;rehearse' {
            break
        }
        'memberctl;help;cluster;recover' {
            break
        }
        'memberctl;help;autopilot' {
            break
        }
        'memberctl;help;snapshot' {
            [CompletionResult]::new('save', 'save', [CompletionResultType]::ParameterValue, 'Save a point-in-time copy of one member''s state to FILE (Maintenance.Snapshot; on etcd, etcd''s own format)')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Check a snapshot file whole (memberctl''s, or etcd''s: its SHA-256 trailer) and show what it holds')
            [CompletionResult]::new('restore', 'restore', [CompletionResultType]::ParameterValue, 'Create the data directory of a member of a new cluster from a snapshot file, memberctl''s or etcd''s (as `etcdctl snapshot restore`); start it with `node run` and the same flags')
            break
        }
        'memberctl;help;snapshot;save' {
            break
        }
        'memberctl;help;snapshot;status' {
            break
        }
        'memberctl;help;snapshot;restore' {
            break
        }
        'memberctl;help;completion' {
            break
        }
        'memberctl;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
