
use builtin;
use str;

set edit:completion:arg-completer[memberctl] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'memberctl'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'memberctl'= {
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand member 'List, add, promote, remove, update members and show their status'
            cand node 'Run a member of the bundled Raft engine (serves etcd''s API)'
            cand cluster 'A local test cluster of bundled-engine nodes, to rehearse changes'
            cand autopilot 'Keep watch on the cluster: replace dead voters with a standby learner, prune stuck learners; one autopilot acts per cluster'
            cand snapshot 'Save, check and restore snapshots of a member''s state'
            cand completion 'Print the shell completion script for SHELL'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memberctl;member'= {
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'List the members of the cluster'
            cand add 'Add a member, after checking its peer URLs (prefer --learner)'
            cand promote 'Promote a learner to a voter once it has caught up with the leader'
            cand remove 'Remove a member, unless the rest could not form a quorum'
            cand prune 'Remove learners that never started or stand still (and, with --dead-voters, dead voters), one at a time'
            cand update 'Change a member''s peer URLs, after checking them'
            cand replace 'Replace a member in the order the cluster calls for: a dead one removed first, then the new one added, started, caught up and promoted; a live one replaced add-first'
            cand apply 'Reach a target membership (the voters wanted) safely, one step at a time; run it again to resume'
            cand status 'Show each member''s reachability, raft term, index, applied index, lag and version, and the fault tolerance'
            cand check 'Check whether the cluster can take a change now (the pre-flight checks every change runs); changes nothing'
            cand move-leader 'Hand leadership to another voter (by default the most caught-up one)'
            cand joint 'Several changes at once through joint consensus (memberctl engine only)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memberctl;member;list'= {
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;member;add'= {
            cand --peer-urls 'The peer URLs to give the member, comma-separated (scheme://host:port)'
            cand --skip-check 'Pass this pre-flight check knowingly, saying so (repeatable)'
            cand --link-bandwidth 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster''s --link, else measured from the leader''s past snapshot sends, else 100 MB/s as etcd assumes]'
            cand --snapshot-count 'The members'' --snapshot-count, for the catch-up check [default: the server version''s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]'
            cand --peer-cert 'The peer certificate the new member will be started with (its --peer-cert-file, PEM): checked before anything is sent (names, CA, key usage, key, dates)'
            cand --peer-key 'The private key of --peer-cert (the new member''s --peer-key-file, PEM)'
            cand --peer-trusted-ca 'The CA the members trust on their peer ports (their --peer-trusted-ca-file, PEM) [default: the issuer of the certificates the members present]'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --learner 'Add as a non-voting learner (the safe way: promote it once caught up)'
            cand --dry-run 'Check everything and print the plan; change nothing'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;member;promote'= {
            cand --stable-for 'Promote only once the learner has met the readiness rule without a break for this long (a sample that is not ready starts it again)'
            cand --skip-check 'Pass this pre-flight check knowingly, saying so (repeatable)'
            cand --link-bandwidth 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster''s --link, else measured from the leader''s past snapshot sends, else 100 MB/s as etcd assumes]'
            cand --snapshot-count 'The members'' --snapshot-count, for the catch-up check [default: the server version''s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]'
            cand --timeout 'How long to wait for the learner to start, catch up and be promoted'
            cand --poll-interval 'How often to poll the learner''s and the leader''s progress'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --no-wait 'Promote at once instead of waiting for the learner to catch up'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;member;remove'= {
            cand --timeout 'How long to wait for leadership to move, and for a learner to promote that was named before it started (a member publishes its name once it runs)'
            cand --skip-check 'Pass this pre-flight check knowingly, saying so (repeatable)'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --dry-run 'Check everything and print the plan; change nothing'
            cand --force 'Remove even if the remaining reachable voters could not form a quorum'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;member;prune'= {
            cand --stalled-for 'Watch the members this long first: a started learner whose index stands still behind the leader''s all along goes (0s: only learners that never started go, at once)'
            cand --poll-interval 'How often to look at every member while watching'
            cand --min-voters 'The fewest voters to leave when removing dead voters (at least 3, which can still lose one)'
            cand --timeout 'How long to wait for leadership to move, and for a learner to promote that was named before it started (a member publishes its name once it runs)'
            cand --skip-check 'Pass this pre-flight check knowingly, saying so (repeatable)'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --dead-voters 'Also remove voters that answer nothing for --stalled-for while the leader has lost them too'
            cand --dry-run 'List what would be removed and why; change nothing'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;member;update'= {
            cand --peer-urls 'The peer URLs to give the member, comma-separated (scheme://host:port)'
            cand --skip-check 'Pass this pre-flight check knowingly, saying so (repeatable)'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;member;replace'= {
            cand --name 'The new member''s name'
            cand --peer-urls 'The peer URLs to give the member, comma-separated (scheme://host:port)'
            cand --timeout 'How long to wait for the learner to start, catch up and be promoted'
            cand --poll-interval 'How often to poll the learner''s and the leader''s progress'
            cand --skip-check 'Pass this pre-flight check knowingly, saying so (repeatable)'
            cand --link-bandwidth 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster''s --link, else measured from the leader''s past snapshot sends, else 100 MB/s as etcd assumes]'
            cand --snapshot-count 'The members'' --snapshot-count, for the catch-up check [default: the server version''s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]'
            cand --peer-cert 'The peer certificate the new member will be started with (its --peer-cert-file, PEM): checked before anything is sent (names, CA, key usage, key, dates)'
            cand --peer-key 'The private key of --peer-cert (the new member''s --peer-key-file, PEM)'
            cand --peer-trusted-ca 'The CA the members trust on their peer ports (their --peer-trusted-ca-file, PEM) [default: the issuer of the certificates the members present]'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --dry-run 'Check everything and print the plan with quorum and fault tolerance per step, and the rule that chose its order; change nothing'
            cand --start-local 'Start the new member on the local test cluster (as `cluster start-node` does)'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;member;apply'= {
            cand --target 'The voters wanted, as NAME=PEER_URL, comma-separated (repeatable)'
            cand --target-file 'The voters wanted, from a file: one NAME=URL[,URL...] a line, or JSON {"members":[{"name","peer_urls"}]}'
            cand --timeout 'How long to wait for the learner to start, catch up and be promoted'
            cand --poll-interval 'How often to poll the learner''s and the leader''s progress'
            cand --skip-check 'Pass this pre-flight check knowingly, saying so (repeatable)'
            cand --link-bandwidth 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster''s --link, else measured from the leader''s past snapshot sends, else 100 MB/s as etcd assumes]'
            cand --snapshot-count 'The members'' --snapshot-count, for the catch-up check [default: the server version''s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --dry-run 'Check everything and print the plan with voters, quorum and fault tolerance after each step; change nothing'
            cand --force 'Allow a target of one member when the cluster has more'
            cand --start-local 'Start new members on the local test cluster (as `cluster start-node` does)'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;member;status'= {
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;member;check'= {
            cand --for 'The change to check for (default: none in particular)'
            cand --link-bandwidth 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster''s --link, else measured from the leader''s past snapshot sends, else 100 MB/s as etcd assumes]'
            cand --snapshot-count 'The members'' --snapshot-count, for the catch-up check [default: the server version''s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]'
            cand --peer-urls 'The new member''s peer URLs, for the peer-tls check of --peer-cert (comma-separated)'
            cand --peer-cert 'The peer certificate the new member will be started with (its --peer-cert-file, PEM): checked before anything is sent (names, CA, key usage, key, dates)'
            cand --peer-key 'The private key of --peer-cert (the new member''s --peer-key-file, PEM)'
            cand --peer-trusted-ca 'The CA the members trust on their peer ports (their --peer-trusted-ca-file, PEM) [default: the issuer of the certificates the members present]'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;member;move-leader'= {
            cand --timeout 'How long to wait for leadership to move, and for a learner to promote that was named before it started (a member publishes its name once it runs)'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;member;joint'= {
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand enter 'Enter a joint configuration with several changes in one step'
            cand leave 'Leave the joint configuration (the new configuration takes over alone)'
            cand status 'Show the configuration: voters (incoming and outgoing), learners, learners-next'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memberctl;member;joint;enter'= {
            cand --add-learner 'Add a new learner, as NAME=URL[,URL...] (repeatable)'
            cand --promote 'Promote a caught-up learner to voter (repeatable)'
            cand --demote 'Demote a voter to learner (repeatable)'
            cand --remove 'Remove a member (repeatable)'
            cand --skip-check 'Pass this pre-flight check knowingly, saying so (repeatable)'
            cand --link-bandwidth 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster''s --link, else measured from the leader''s past snapshot sends, else 100 MB/s as etcd assumes]'
            cand --snapshot-count 'The members'' --snapshot-count, for the catch-up check [default: the server version''s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]'
            cand --timeout 'How long to wait for the learner to start, catch up and be promoted'
            cand --poll-interval 'How often to poll the learner''s and the leader''s progress'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --dry-run 'Check everything and print the plan (C_old, C_old∧C_new, C_new); change nothing'
            cand --force 'Promote learners even if they have not caught up'
            cand --no-wait 'Refuse at once (rule 6) a learner to promote that has not caught up, instead of waiting for it'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;member;joint;leave'= {
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;member;joint;status'= {
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;member;joint;help'= {
            cand enter 'Enter a joint configuration with several changes in one step'
            cand leave 'Leave the joint configuration (the new configuration takes over alone)'
            cand status 'Show the configuration: voters (incoming and outgoing), learners, learners-next'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memberctl;member;joint;help;enter'= {
        }
        &'memberctl;member;joint;help;leave'= {
        }
        &'memberctl;member;joint;help;status'= {
        }
        &'memberctl;member;joint;help;help'= {
        }
        &'memberctl;member;help'= {
            cand list 'List the members of the cluster'
            cand add 'Add a member, after checking its peer URLs (prefer --learner)'
            cand promote 'Promote a learner to a voter once it has caught up with the leader'
            cand remove 'Remove a member, unless the rest could not form a quorum'
            cand prune 'Remove learners that never started or stand still (and, with --dead-voters, dead voters), one at a time'
            cand update 'Change a member''s peer URLs, after checking them'
            cand replace 'Replace a member in the order the cluster calls for: a dead one removed first, then the new one added, started, caught up and promoted; a live one replaced add-first'
            cand apply 'Reach a target membership (the voters wanted) safely, one step at a time; run it again to resume'
            cand status 'Show each member''s reachability, raft term, index, applied index, lag and version, and the fault tolerance'
            cand check 'Check whether the cluster can take a change now (the pre-flight checks every change runs); changes nothing'
            cand move-leader 'Hand leadership to another voter (by default the most caught-up one)'
            cand joint 'Several changes at once through joint consensus (memberctl engine only)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memberctl;member;help;list'= {
        }
        &'memberctl;member;help;add'= {
        }
        &'memberctl;member;help;promote'= {
        }
        &'memberctl;member;help;remove'= {
        }
        &'memberctl;member;help;prune'= {
        }
        &'memberctl;member;help;update'= {
        }
        &'memberctl;member;help;replace'= {
        }
        &'memberctl;member;help;apply'= {
        }
        &'memberctl;member;help;status'= {
        }
        &'memberctl;member;help;check'= {
        }
        &'memberctl;member;help;move-leader'= {
        }
        &'memberctl;member;help;joint'= {
            cand enter 'Enter a joint configuration with several changes in one step'
            cand leave 'Leave the joint configuration (the new configuration takes over alone)'
            cand status 'Show the configuration: voters (incoming and outgoing), learners, learners-next'
        }
        &'memberctl;member;help;joint;enter'= {
        }
        &'memberctl;member;help;joint;leave'= {
        }
        &'memberctl;member;help;joint;status'= {
        }
        &'memberctl;member;help;help'= {
        }
        &'memberctl;node'= {
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand run 'Run one member of an embedded-engine cluster (flags as etcd''s)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memberctl;node;run'= {
            cand --name 'This member''s name'
            cand --data-dir 'Directory for the member''s data (etcd''s default: NAME.etcd)'
            cand --listen-client-urls 'URL to listen on for clients'
            cand --advertise-client-urls 'Client URLs to advertise to the cluster'
            cand --listen-metrics-urls 'Extra plain-HTTP URLs that serve /metrics and the health checks only (the client URL serves them too)'
            cand --listen-peer-urls 'URL to listen on for peers'
            cand --initial-advertise-peer-urls 'Peer URLs to advertise to the cluster'
            cand --initial-cluster 'The initial members, as name=peer-url pairs (etcd''s default: this member alone, NAME=each --initial-advertise-peer-urls)'
            cand --initial-cluster-state 'new to bootstrap a cluster, existing to join one'
            cand --initial-cluster-token 'Token that keeps IDs of different clusters apart'
            cand --heartbeat-interval 'Time between heartbeats, in milliseconds'
            cand --election-timeout 'Election timeout, in milliseconds'
            cand --snapshot-count 'Compact the raft log every this many applied entries'
            cand --max-learners 'Most learners the cluster may have at once'
            cand --quota-backend-bytes 'Refuse writes that add data (etcd''s NOSPACE alarm) once the state-machine file would pass this many bytes; 0: etcd''s default, 2 GiB'
            cand --corrupt-check-time 'How often the leader compares its key-value hash with each peer''s, raising the CORRUPT alarm for a member whose hash differs (0: never, etcd''s default)'
            cand --grpc-keepalive-interval 'How long a client connection may be idle before the server pings it (etcd''s default: 2h)'
            cand --grpc-keepalive-timeout 'How long the server waits for a ping''s answer before it closes the connection (etcd''s default: 20s)'
            cand --max-request-bytes 'Largest write request the server takes, in bytes (etcd''s default: 1.5 MiB)'
            cand --max-txn-ops 'Most operations in one branch of a transaction'
            cand --auto-compaction-mode 'How --auto-compaction-retention counts: periodic (time) or revision'
            cand --auto-compaction-retention 'History the leader keeps when it compacts by itself: hours or a duration (periodic), revisions (revision); 0: no automatic compaction'
            cand --cert-file 'Certificate for client connections (TLS on the client URLs)'
            cand --key-file 'Key of --cert-file'
            cand --trusted-ca-file 'CA that signs client certificates'
            cand --client-cert-auth 'Require client certificates signed by --trusted-ca-file'
            cand --client-crl-file 'Refuse client certificates this revocation list revokes (PEM or DER; needs --trusted-ca-file)'
            cand --client-cert-allowed-hostname 'Accept only client certificates whose subjectAltNames name this host (needs --trusted-ca-file)'
            cand --cipher-suites 'TLS 1.2 cipher suites the client and peer listeners offer, by Go''s names, comma-separated (default: all the engine has; TLS 1.3''s are always offered, as Go''s)'
            cand --tls-min-version 'Lowest TLS version the listeners accept: TLS1.2 (default) or TLS1.3'
            cand --tls-max-version 'Highest TLS version the listeners accept: TLS1.2 or TLS1.3 (default)'
            cand --auto-tls 'Without --cert-file/--key-file, serve the client URLs with a self-signed certificate made at start (kept in DATA-DIR/fixtures/client)'
            cand --peer-auto-tls 'Without --peer-cert-file/--peer-key-file, serve and dial peers with a self-signed certificate made at start (DATA-DIR/fixtures/peer); peers'' certificates are then taken unverified, as etcd takes them'
            cand --self-signed-cert-validity 'Years the certificates --auto-tls and --peer-auto-tls make last'
            cand --peer-cert-file 'Certificate for peer connections (served, and presented to peers)'
            cand --peer-key-file 'Key of --peer-cert-file'
            cand --peer-trusted-ca-file 'CA that signs the peers'' certificates'
            cand --peer-client-cert-auth 'Require peer certificates signed by --peer-trusted-ca-file'
            cand --peer-crl-file 'Refuse peer certificates this revocation list revokes (PEM or DER; needs --peer-trusted-ca-file)'
            cand --peer-cert-allowed-cn 'Accept only peer certificates with this common name (needs --peer-trusted-ca-file)'
            cand --peer-cert-allowed-hostname 'Accept only peer certificates whose subjectAltNames name this host (needs --peer-trusted-ca-file)'
            cand --auth-token 'How Authenticate''s tokens are made: simple (etcd''s default: random tokens every member learns through raft) or jwt,priv-key=FILE,pub-key=FILE,sign-method=METHOD[,ttl=DURATION] (signed tokens any member checks with the public key; METHOD one of RS256/384/512, PS256/384/512, ES256/384, HS256/384/512 with priv-key the secret, EdDSA; pub-key alone checks tokens without issuing any; ttl 5m by default)'
            cand --auth-token-ttl 'Seconds a simple token lives after its last use (0: etcd''s default, 300)'
            cand --bcrypt-cost 'bcrypt''s cost for the passwords of users added or changed here (4 to 31; any other is taken as 10 with a warning, as etcd takes it)'
            cand --initial-corrupt-check 'Before serving, compare this member''s key-value hash with its peers'' at its revision; exit on a mismatch (etcd''s --experimental-initial-corrupt-check)'
            cand --strict-reconfig-check 'Refuse a membership change that would leave too few started voters or that the leader cannot reach every voter for (false: accept it, as etcd with --strict-reconfig-check=false)'
            cand --max-concurrent-streams 'Most concurrent gRPC streams per client connection (etcd''s default, math.MaxUint32: no limit)'
            cand --watch-progress-notify-interval 'How often an idle watch that asked for progress notifications gets one (etcd''s default: 10m)'
            cand --force-new-cluster 'etcd''s way back from a lost quorum: keep this member''s data and make it the cluster''s only member (then add the others back as new members)'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --fault-injection 'Test clusters only: serve the fault-injection service (memberctl.v1.Fault) on the client and peer URLs, with which any client can make this node drop the raft traffic to and from chosen peers, as a network partition would, and heal it'
            cand --fault-stale-reads 'Test clusters only, a deliberate bug: serve linearizable reads from this node''s state without asking the leader (ReadIndex), so they may be stale; for showing that the linearizability checker catches it'
            cand --fault-ack-before-fsync 'Test clusters only, a deliberate bug: acknowledge raft log writes before they are written and fsync''d (they are held in memory, as a disk''s volatile cache would hold them), so a kill loses acknowledged writes; for showing that the linearizability checker catches it'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;node;help'= {
            cand run 'Run one member of an embedded-engine cluster (flags as etcd''s)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memberctl;node;help;run'= {
        }
        &'memberctl;node;help;help'= {
        }
        &'memberctl;cluster'= {
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand up 'Start a local test cluster of embedded-engine nodes on loopback (or restart a stopped one)'
            cand start-node 'Start the node of a member that `member add` has just added'
            cand status 'Show the local cluster''s nodes, processes and leader'
            cand down 'Stop the local cluster''s node processes (only those it started)'
            cand link 'Change the link between the members of a cluster started with `cluster up --link`: its settings, or a stall'
            cand link-serve 'Run the link model between the local cluster''s members (started by `cluster up --link`)'
            cand chaos 'Inject seeded random faults into the local cluster for a while (kill -9, wipe, pause, link stalls, the acting autopilot killed), one JSON line per fault''s start and end'
            cand rehearse 'Rehearse a membership change on the local cluster under a steady writer, and draw what it did: report.html (charts, summary) and report.json'
            cand recover 'Bring back a local cluster that lost its quorum: restart the best survivor with --force-new-cluster, then add the others back as new members'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memberctl;cluster;up'= {
            cand --nodes 'Number of members'
            cand --dir 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]'
            cand --max-learners 'Most learners the cluster may have at once'
            cand --snapshot-count 'Compact each node''s raft log every this many applied entries'
            cand --quota-backend-bytes 'Refuse writes that add data (etcd''s NOSPACE alarm) once a node''s state-machine file would pass this many bytes; 0: etcd''s default, 2 GiB'
            cand --heartbeat-interval 'Time between heartbeats of every node, in milliseconds'
            cand --election-timeout 'Election timeout of every node, in milliseconds'
            cand --from-snapshot 'Start a new cluster holding the data of this snapshot file: `etcdctl snapshot save` of an etcd (3.4-3.7) or a memberctl snapshot; every node is restored from it'
            cand --link 'Put a link between every pair of members, both ways: round trip, bandwidth and queue, e.g. rtt=40ms,bandwidth=50mbit,queue=4mb; add shared=uplink for one queue per sending member instead of one per pair (shared=all: one for everyone), per-connection=SIZE for the most of a queue one connection may hold, so that connections take turns as on a sending host, instead of one FIFO as at a router (a rehearsal on the operator''s own link; kept across restarts, honoured by start-node)'
            cand --etcd 'Run the members on this etcd server binary (3.4-3.7, e.g. "$(command -v etcd)") instead of memberctl''s engine: a rehearsal on the operator''s own etcd (kept across restarts; --from-snapshot restores with the etcdutl or etcdctl beside it)'
            cand --etcd-flag 'With --etcd: give every member this etcd flag too, after memberctl''s (repeatable; a flag and its value as one word: --etcd-flag=--auto-compaction-retention=1); the flags memberctl sets itself are refused'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --fault-injection 'Test clusters only: start every node with --fault-injection (kept in the cluster''s state, so start-node and restarts use it too)'
            cand --fault-stale-reads 'Test clusters only, a deliberate bug: start every node with --fault-stale-reads (local linearizable reads)'
            cand --fault-ack-before-fsync 'Test clusters only, a deliberate bug: start every node with --fault-ack-before-fsync (acknowledged log writes held in memory)'
            cand --skip-hash-check 'With --from-snapshot: restore an etcd database that has no SHA-256 trailer (copied from a data directory), unchecked'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;cluster;start-node'= {
            cand --dir 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]'
            cand --peer-url 'Which added member, when several are waiting to start'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;cluster;status'= {
            cand --dir 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;cluster;down'= {
            cand --dir 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;cluster;link'= {
            cand --dir 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]'
            cand --set 'New settings for every member pair from now on, e.g. rtt=60ms,bandwidth=50mbit,queue=4mb'
            cand --stall 'Deliver nothing for this long (nothing is lost: bytes wait), as a path that stalls'
            cand --node 'With --stall: only the links to and from this node'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;cluster;link-serve'= {
            cand --dir 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;cluster;chaos'= {
            cand --dir 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]'
            cand --seed 'The seed of every random draw: the same seed replays the same schedule [default: from the clock, printed on stderr]'
            cand --duration 'How long to inject faults; those in progress end then'
            cand --faults 'The faults to draw from, comma-separated [default: all; stall and slow only with a link]'
            cand --max-concurrent 'The most faults in progress at once'
            cand --every 'The mean time between the starts of two faults'
            cand --hold 'The longest a fault lasts (each lasts half to all of it)'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --break-quorum 'Allow more voters down or cut off at once than the cluster can lose (its quorum goes)'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;cluster;rehearse'= {
            cand --dir 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]'
            cand --writer-rate 'Puts per second of the steady writer (N or N/s)'
            cand --value-size 'Bytes of each put''s value'
            cand --report 'Directory for report.html and report.json (made if missing)'
            cand --before 'How long the writer runs before the change'
            cand --after 'How long the writer runs after the cluster settled'
            cand --settle-timeout 'The longest wait for the cluster to settle after the change (one leader, every member answering, their indexes close)'
            cand --timeout 'The longest the change may run (it is stopped then)'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;cluster;recover'= {
            cand --dir 'Directory holding the cluster''s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]'
            cand --from 'The survivor to recover from (default: the one with the most of the log)'
            cand --timeout 'How long to wait for each member added back to start and catch up'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;cluster;help'= {
            cand up 'Start a local test cluster of embedded-engine nodes on loopback (or restart a stopped one)'
            cand start-node 'Start the node of a member that `member add` has just added'
            cand status 'Show the local cluster''s nodes, processes and leader'
            cand down 'Stop the local cluster''s node processes (only those it started)'
            cand link 'Change the link between the members of a cluster started with `cluster up --link`: its settings, or a stall'
            cand link-serve 'Run the link model between the local cluster''s members (started by `cluster up --link`)'
            cand chaos 'Inject seeded random faults into the local cluster for a while (kill -9, wipe, pause, link stalls, the acting autopilot killed), one JSON line per fault''s start and end'
            cand rehearse 'Rehearse a membership change on the local cluster under a steady writer, and draw what it did: report.html (charts, summary) and report.json'
            cand recover 'Bring back a local cluster that lost its quorum: restart the best survivor with --force-new-cluster, then add the others back as new members'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memberctl;cluster;help;up'= {
        }
        &'memberctl;cluster;help;start-node'= {
        }
        &'memberctl;cluster;help;status'= {
        }
        &'memberctl;cluster;help;down'= {
        }
        &'memberctl;cluster;help;link'= {
        }
        &'memberctl;cluster;help;link-serve'= {
        }
        &'memberctl;cluster;help;chaos'= {
        }
        &'memberctl;cluster;help;rehearse'= {
        }
        &'memberctl;cluster;help;recover'= {
        }
        &'memberctl;cluster;help;help'= {
        }
        &'memberctl;autopilot'= {
            cand --interval 'Time between two looks at the cluster'
            cand --heartbeat 'A decision is printed when it changes; the same decision again only once this long (0: every look)'
            cand --dead-after 'A voter unreachable this long, that the leader has lost too, is dead'
            cand --standby 'The learners kept as standbys, by name (repeatable) [default: any started learner]'
            cand --stable-for 'How long a standby must have been ready (caught up) without a break before it takes a dead voter''s place'
            cand --min-voters 'The fewest voters a removal may leave (at least 3, which can still lose one)'
            cand --voters 'The voters to keep: while fewer (a dead voter was removed without a ready standby), a ready standby is promoted [default: --min-voters, with --cleanup-dead only]'
            cand --stalled-for 'A started learner whose index stands still behind the leader''s this long is pruned, as `member prune` does'
            cand --name 'This autopilot''s name in the election among autopilots (key prefix memberctl/autopilot/) [default: HOST-PID]'
            cand --lease-ttl 'The election lease''s time to live: how soon another autopilot takes over when this one dies'
            cand --timeout 'How long one action may wait (a standby''s catch-up, leadership moves)'
            cand --listen-metrics 'Serve Prometheus metrics (/metrics) and a health check (/health) on this address, e.g. 127.0.0.1:9479'
            cand --skip-check 'Pass this pre-flight check knowingly, saying so (repeatable)'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --cleanup-dead 'Remove a dead voter even without a standby, while --min-voters remain'
            cand --start-standby 'On the local test cluster: when no learner exists, add one and start it (`member add --learner` + `cluster start-node`)'
            cand --dry-run 'Decide and report every decision; change nothing'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;snapshot'= {
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand save 'Save a point-in-time copy of one member''s state to FILE (Maintenance.Snapshot; on etcd, etcd''s own format)'
            cand status 'Check a snapshot file whole (memberctl''s, or etcd''s: its SHA-256 trailer) and show what it holds'
            cand restore 'Create the data directory of a member of a new cluster from a snapshot file, memberctl''s or etcd''s (as `etcdctl snapshot restore`); start it with `node run` and the same flags'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memberctl;snapshot;save'= {
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;snapshot;status'= {
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;snapshot;restore'= {
            cand --name 'The member''s name'
            cand --data-dir 'The new data directory (must not exist, or be empty)'
            cand --initial-cluster 'The initial members, as name=peer-url pairs'
            cand --initial-advertise-peer-urls 'This member''s peer URLs'
            cand --initial-cluster-token 'Token that keeps IDs of different clusters apart'
            cand --bump-revision 'Move the revision this far ahead of the snapshot''s (with --mark-compacted, as etcdutl''s): watchers and caches holding revisions of the old cluster see them compacted, not reused; restore every member with the same amount'
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --skip-hash-check 'Restore an etcd database that has no SHA-256 trailer (copied from a data directory''s member/snap/db), unchecked'
            cand --mark-compacted 'Mark the bumped revision compacted (with --bump-revision, as etcdutl''s): a read or watch from an earlier revision is answered "compacted"'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;snapshot;help'= {
            cand save 'Save a point-in-time copy of one member''s state to FILE (Maintenance.Snapshot; on etcd, etcd''s own format)'
            cand status 'Check a snapshot file whole (memberctl''s, or etcd''s: its SHA-256 trailer) and show what it holds'
            cand restore 'Create the data directory of a member of a new cluster from a snapshot file, memberctl''s or etcd''s (as `etcdctl snapshot restore`); start it with `node run` and the same flags'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memberctl;snapshot;help;save'= {
        }
        &'memberctl;snapshot;help;status'= {
        }
        &'memberctl;snapshot;help;restore'= {
        }
        &'memberctl;snapshot;help;help'= {
        }
        &'memberctl;completion'= {
            cand --endpoints 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]'
            cand --dial-timeout 'How long to wait for a connection to an endpoint'
            cand --command-timeout 'How long one request may take (and how long to retry "unhealthy cluster")'
            cand -w 'Output format [default: table on a terminal, simple otherwise]'
            cand --write-out 'Output format [default: table on a terminal, simple otherwise]'
            cand --cacert 'CA bundle to verify the servers'' certificates (endpoints without a scheme then use https)'
            cand --cert 'Client certificate for TLS, for servers that require one (with --key)'
            cand --key 'Client key for TLS (with --cert)'
            cand --user 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)'
            cand --password 'Password for authentication'
            cand --insecure-skip-tls-verify 'Encrypt but do not verify the servers'' certificates (test clusters only)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'memberctl;help'= {
            cand member 'List, add, promote, remove, update members and show their status'
            cand node 'Run a member of the bundled Raft engine (serves etcd''s API)'
            cand cluster 'A local test cluster of bundled-engine nodes, to rehearse changes'
            cand autopilot 'Keep watch on the cluster: replace dead voters with a standby learner, prune stuck learners; one autopilot acts per cluster'
            cand snapshot 'Save, check and restore snapshots of a member''s state'
            cand completion 'Print the shell completion script for SHELL'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'memberctl;help;member'= {
            cand list 'List the members of the cluster'
            cand add 'Add a member, after checking its peer URLs (prefer --learner)'
            cand promote 'Promote a learner to a voter once it has caught up with the leader'
            cand remove 'Remove a member, unless the rest could not form a quorum'
            cand prune 'Remove learners that never started or stand still (and, with --dead-voters, dead voters), one at a time'
            cand update 'Change a member''s peer URLs, after checking them'
            cand replace 'Replace a member in the order the cluster calls for: a dead one removed first, then the new one added, started, caught up and promoted; a live one replaced add-first'
            cand apply 'Reach a target membership (the voters wanted) safely, one step at a time; run it again to resume'
            cand status 'Show each member''s reachability, raft term, index, applied index, lag and version, and the fault tolerance'
            cand check 'Check whether the cluster can take a change now (the pre-flight checks every change runs); changes nothing'
            cand move-leader 'Hand leadership to another voter (by default the most caught-up one)'
            cand joint 'Several changes at once through joint consensus (memberctl engine only)'
        }
        &'memberctl;help;member;list'= {
        }
        &'memberctl;help;member;add'= {
        }
        &'memberctl;help;member;promote'= {
        }
        &'memberctl;help;member;remove'= {
        }
        &'memberctl;help;member;prune'= {
        }
        &'memberctl;help;member;update'= {
        }
        &'memberctl;help;member;replace'= {
        }
        &'memberctl;help;member;apply'= {
        }
        &'memberctl;help;member;status'= {
        }
        &'memberctl;help;member;check'= {
        }
        &'memberctl;help;member;move-leader'= {
        }
        &'memberctl;help;member;joint'= {
            cand enter 'Enter a joint configuration with several changes in one step'
            cand leave 'Leave the joint configuration (the new configuration takes over alone)'
            cand status 'Show the configuration: voters (incoming and outgoing), learners, learners-next'
        }
        &'memberctl;help;member;joint;enter'= {
        }
        &'memberctl;help;member;joint;leave'= {
        }
        &'memberctl;help;member;joint;status'= {
        }
        &'memberctl;help;node'= {
            cand run 'Run one member of an embedded-engine cluster (flags as etcd''s)'
        }
        &'memberctl;help;node;run'= {
        }
        &'memberctl;help;cluster'= {
            cand up 'Start a local test cluster of embedded-engine nodes on loopback (or restart a stopped one)'
            cand start-node 'Start the node of a member that `member add` has just added'
            cand status 'Show the local cluster''s nodes, processes and leader'
            cand down 'Stop the local cluster''s node processes (only those it started)'
            cand link 'Change the link between the members of a cluster started with `cluster up --link`: its settings, or a stall'
            cand link-serve 'Run the link model between the local cluster''s members (started by `cluster up --link`)'
            cand chaos 'Inject seeded random faults into the local cluster for a while (kill -9, wipe, pause, link stalls, the acting autopilot killed), one JSON line per fault''s start and end'
            cand rehearse 'Rehearse a membership change on the local cluster under a steady writer, and draw what it did: report.html (charts, summary) and report.json'
            cand recover 'Bring back a local cluster that lost its quorum: restart the best survivor with --force-new-cluster, then add the others back as new members'
        }
        &'memberctl;help;cluster;up'= {
        }
        &'memberctl;help;cluster;start-node'= {
        }
        &'memberctl;help;cluster;status'= {
        }
        &'memberctl;help;cluster;down'= {
        }
        &'memberctl;help;cluster;link'= {
        }
        &'memberctl;help;cluster;link-serve'= {
        }
        &'memberctl;help;cluster;chaos'= {
        }
        &'memberctl;help;cluster;rehearse'= {
        }
        &'memberctl;help;cluster;recover'= {
        }
        &'memberctl;help;autopilot'= {
        }
        &'memberctl;help;snapshot'= {
            cand save 'Save a point-in-time copy of one member''s state to FILE (Maintenance.Snapshot; on etcd, etcd''s own format)'
            cand status 'Check a snapshot file whole (memberctl''s, or etcd''s: its SHA-256 trailer) and show what it holds'
            cand restore 'Create the data directory of a member of a new cluster from a snapshot file, memberctl''s or etcd''s (as `etcdctl snapshot restore`); start it with `node run` and the same flags'
        }
        &'memberctl;help;snapshot;save'= {
        }
        &'memberctl;help;snapshot;status'= {
        }
        &'memberctl;help;snapshot;restore'= {
        }
        &'memberctl;help;completion'= {
        }
        &'memberctl;help;help'= {
        }
    ]
    $completions[$command]
}
