# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_memberctl_global_optspecs
    string join \n endpoints= dial-timeout= command-timeout= w/write-out= cacert= cert= key= insecure-skip-tls-verify user= password= h/help V/version
end

function __fish_memberctl_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_memberctl_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_memberctl_using_subcommand
    set -l cmd (__fish_memberctl_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c memberctl -n "__fish_memberctl_needs_command" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_needs_command" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_needs_command" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_needs_command" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_needs_command" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_needs_command" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_needs_command" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_needs_command" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_needs_command" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_needs_command" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_needs_command" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_needs_command" -f -a "member" -d 'List, add, promote, remove, update members and show their status'
complete -c memberctl -n "__fish_memberctl_needs_command" -f -a "node" -d 'Run a member of the bundled Raft engine (serves etcd\'s API)'
complete -c memberctl -n "__fish_memberctl_needs_command" -f -a "cluster" -d 'A local test cluster of bundled-engine nodes, to rehearse changes'
complete -c memberctl -n "__fish_memberctl_needs_command" -f -a "autopilot" -d 'Keep watch on the cluster: replace dead voters with a standby learner, prune stuck learners; one autopilot acts per cluster'
complete -c memberctl -n "__fish_memberctl_needs_command" -f -a "snapshot" -d 'Save, check and restore snapshots of a member\'s state'
complete -c memberctl -n "__fish_memberctl_needs_command" -f -a "completion" -d 'Print the shell completion script for SHELL'
complete -c memberctl -n "__fish_memberctl_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -f -a "list" -d 'List the members of the cluster'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -f -a "add" -d 'Add a member, after checking its peer URLs (prefer --learner)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -f -a "promote" -d 'Promote a learner to a voter once it has caught up with the leader'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -f -a "remove" -d 'Remove a member, unless the rest could not form a quorum'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -f -a "prune" -d 'Remove learners that never started or stand still (and, with --dead-voters, dead voters), one at a time'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -f -a "update" -d 'Change a member\'s peer URLs, after checking them'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -f -a "replace" -d 'Replace a member in the order the cluster calls for: a dead one removed first, then the new one added, started, caught up and promoted; a live one replaced add-first'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -f -a "apply" -d 'Reach a target membership (the voters wanted) safely, one step at a time; run it again to resume'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -f -a "status" -d 'Show each member\'s reachability, raft term, index, applied index, lag and version, and the fault tolerance'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -f -a "check" -d 'Check whether the cluster can take a change now (the pre-flight checks every change runs); changes nothing'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -f -a "move-leader" -d 'Hand leadership to another voter (by default the most caught-up one)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -f -a "joint" -d 'Several changes at once through joint consensus (memberctl engine only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and not __fish_seen_subcommand_from list add promote remove prune update replace apply status check move-leader joint help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from list" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from list" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from list" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from list" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from list" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from list" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from list" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from list" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from list" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from list" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l peer-urls -d 'The peer URLs to give the member, comma-separated (scheme://host:port)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l skip-check -d 'Pass this pre-flight check knowingly, saying so (repeatable)' -r -f -a "quorum\t''
alarms\t''
learners\t''
versions\t''
db\t''
apply\t''
disk\t''
network\t''
stability\t''
catch-up\t''
peer-tls\t''
force-new-cluster\t''
upgrade\t''"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l link-bandwidth -d 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster\'s --link, else measured from the leader\'s past snapshot sends, else 100 MB/s as etcd assumes]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l snapshot-count -d 'The members\' --snapshot-count, for the catch-up check [default: the server version\'s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l peer-cert -d 'The peer certificate the new member will be started with (its --peer-cert-file, PEM): checked before anything is sent (names, CA, key usage, key, dates)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l peer-key -d 'The private key of --peer-cert (the new member\'s --peer-key-file, PEM)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l peer-trusted-ca -d 'The CA the members trust on their peer ports (their --peer-trusted-ca-file, PEM) [default: the issuer of the certificates the members present]' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l learner -d 'Add as a non-voting learner (the safe way: promote it once caught up)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l dry-run -d 'Check everything and print the plan; change nothing'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from add" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l stable-for -d 'Promote only once the learner has met the readiness rule without a break for this long (a sample that is not ready starts it again)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l skip-check -d 'Pass this pre-flight check knowingly, saying so (repeatable)' -r -f -a "quorum\t''
alarms\t''
learners\t''
versions\t''
db\t''
apply\t''
disk\t''
network\t''
stability\t''
catch-up\t''
peer-tls\t''
force-new-cluster\t''
upgrade\t''"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l link-bandwidth -d 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster\'s --link, else measured from the leader\'s past snapshot sends, else 100 MB/s as etcd assumes]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l snapshot-count -d 'The members\' --snapshot-count, for the catch-up check [default: the server version\'s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l timeout -d 'How long to wait for the learner to start, catch up and be promoted' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l poll-interval -d 'How often to poll the learner\'s and the leader\'s progress' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l no-wait -d 'Promote at once instead of waiting for the learner to catch up'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from promote" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -l timeout -d 'How long to wait for leadership to move, and for a learner to promote that was named before it started (a member publishes its name once it runs)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -l skip-check -d 'Pass this pre-flight check knowingly, saying so (repeatable)' -r -f -a "quorum\t''
alarms\t''
learners\t''
versions\t''
db\t''
apply\t''
disk\t''
network\t''
stability\t''
catch-up\t''
peer-tls\t''
force-new-cluster\t''
upgrade\t''"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -l dry-run -d 'Check everything and print the plan; change nothing'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -l force -d 'Remove even if the remaining reachable voters could not form a quorum'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from remove" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l stalled-for -d 'Watch the members this long first: a started learner whose index stands still behind the leader\'s all along goes (0s: only learners that never started go, at once)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l poll-interval -d 'How often to look at every member while watching' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l min-voters -d 'The fewest voters to leave when removing dead voters (at least 3, which can still lose one)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l timeout -d 'How long to wait for leadership to move, and for a learner to promote that was named before it started (a member publishes its name once it runs)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l skip-check -d 'Pass this pre-flight check knowingly, saying so (repeatable)' -r -f -a "quorum\t''
alarms\t''
learners\t''
versions\t''
db\t''
apply\t''
disk\t''
network\t''
stability\t''
catch-up\t''
peer-tls\t''
force-new-cluster\t''
upgrade\t''"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l dead-voters -d 'Also remove voters that answer nothing for --stalled-for while the leader has lost them too'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l dry-run -d 'List what would be removed and why; change nothing'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from prune" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from update" -l peer-urls -d 'The peer URLs to give the member, comma-separated (scheme://host:port)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from update" -l skip-check -d 'Pass this pre-flight check knowingly, saying so (repeatable)' -r -f -a "quorum\t''
alarms\t''
learners\t''
versions\t''
db\t''
apply\t''
disk\t''
network\t''
stability\t''
catch-up\t''
peer-tls\t''
force-new-cluster\t''
upgrade\t''"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from update" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from update" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from update" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from update" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from update" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from update" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from update" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from update" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from update" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from update" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from update" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from update" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l name -d 'The new member\'s name' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l peer-urls -d 'The peer URLs to give the member, comma-separated (scheme://host:port)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l timeout -d 'How long to wait for the learner to start, catch up and be promoted' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l poll-interval -d 'How often to poll the learner\'s and the leader\'s progress' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l skip-check -d 'Pass this pre-flight check knowingly, saying so (repeatable)' -r -f -a "quorum\t''
alarms\t''
learners\t''
versions\t''
db\t''
apply\t''
disk\t''
network\t''
stability\t''
catch-up\t''
peer-tls\t''
force-new-cluster\t''
upgrade\t''"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l link-bandwidth -d 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster\'s --link, else measured from the leader\'s past snapshot sends, else 100 MB/s as etcd assumes]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l snapshot-count -d 'The members\' --snapshot-count, for the catch-up check [default: the server version\'s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l peer-cert -d 'The peer certificate the new member will be started with (its --peer-cert-file, PEM): checked before anything is sent (names, CA, key usage, key, dates)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l peer-key -d 'The private key of --peer-cert (the new member\'s --peer-key-file, PEM)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l peer-trusted-ca -d 'The CA the members trust on their peer ports (their --peer-trusted-ca-file, PEM) [default: the issuer of the certificates the members present]' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l dry-run -d 'Check everything and print the plan with quorum and fault tolerance per step, and the rule that chose its order; change nothing'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l start-local -d 'Start the new member on the local test cluster (as `cluster start-node` does)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from replace" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l target -d 'The voters wanted, as NAME=PEER_URL, comma-separated (repeatable)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l target-file -d 'The voters wanted, from a file: one NAME=URL[,URL...] a line, or JSON {"members":[{"name","peer_urls"}]}' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l timeout -d 'How long to wait for the learner to start, catch up and be promoted' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l poll-interval -d 'How often to poll the learner\'s and the leader\'s progress' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l skip-check -d 'Pass this pre-flight check knowingly, saying so (repeatable)' -r -f -a "quorum\t''
alarms\t''
learners\t''
versions\t''
db\t''
apply\t''
disk\t''
network\t''
stability\t''
catch-up\t''
peer-tls\t''
force-new-cluster\t''
upgrade\t''"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l link-bandwidth -d 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster\'s --link, else measured from the leader\'s past snapshot sends, else 100 MB/s as etcd assumes]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l snapshot-count -d 'The members\' --snapshot-count, for the catch-up check [default: the server version\'s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l dry-run -d 'Check everything and print the plan with voters, quorum and fault tolerance after each step; change nothing'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l force -d 'Allow a target of one member when the cluster has more'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l start-local -d 'Start new members on the local test cluster (as `cluster start-node` does)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from apply" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from status" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from status" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from status" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from status" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from status" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from status" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from status" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from status" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from status" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from status" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l for -d 'The change to check for (default: none in particular)' -r -f -a "add\t'Adding a learner (the safe way to add)'
add-voter\t'Adding a voter'
promote\t'Promoting the learner MEMBER'
remove\t'Removing MEMBER'
update\t'Changing MEMBER\'s peer URLs'
replace\t'Replacing MEMBER with a new member (add a learner, promote it, remove MEMBER)'
upgrade\t'Moving the cluster to etcd VERSION by replacing (or restarting) members: one minor version at a time, every member first on the minimum patch release (3.5.26 before 3.6, 3.6.11 before 3.7)'"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l link-bandwidth -d 'Bandwidth from the leader to the new member, for the catch-up estimate (e.g. 100mbit, 1gbit; kbit, mbit, gbit per second) [default: the local cluster\'s --link, else measured from the leader\'s past snapshot sends, else 100 MB/s as etcd assumes]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l snapshot-count -d 'The members\' --snapshot-count, for the catch-up check [default: the server version\'s: 100000 before 3.6, 10000 from 3.6; the engine reports its own]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l peer-urls -d 'The new member\'s peer URLs, for the peer-tls check of --peer-cert (comma-separated)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l peer-cert -d 'The peer certificate the new member will be started with (its --peer-cert-file, PEM): checked before anything is sent (names, CA, key usage, key, dates)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l peer-key -d 'The private key of --peer-cert (the new member\'s --peer-key-file, PEM)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l peer-trusted-ca -d 'The CA the members trust on their peer ports (their --peer-trusted-ca-file, PEM) [default: the issuer of the certificates the members present]' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from check" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from move-leader" -l timeout -d 'How long to wait for leadership to move, and for a learner to promote that was named before it started (a member publishes its name once it runs)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from move-leader" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from move-leader" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from move-leader" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from move-leader" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from move-leader" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from move-leader" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from move-leader" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from move-leader" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from move-leader" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from move-leader" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from move-leader" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from move-leader" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -f -a "enter" -d 'Enter a joint configuration with several changes in one step'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -f -a "leave" -d 'Leave the joint configuration (the new configuration takes over alone)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -f -a "status" -d 'Show the configuration: voters (incoming and outgoing), learners, learners-next'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from joint" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the members of the cluster'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "add" -d 'Add a member, after checking its peer URLs (prefer --learner)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "promote" -d 'Promote a learner to a voter once it has caught up with the leader'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "remove" -d 'Remove a member, unless the rest could not form a quorum'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "prune" -d 'Remove learners that never started or stand still (and, with --dead-voters, dead voters), one at a time'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "update" -d 'Change a member\'s peer URLs, after checking them'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "replace" -d 'Replace a member in the order the cluster calls for: a dead one removed first, then the new one added, started, caught up and promoted; a live one replaced add-first'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "apply" -d 'Reach a target membership (the voters wanted) safely, one step at a time; run it again to resume'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show each member\'s reachability, raft term, index, applied index, lag and version, and the fault tolerance'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "check" -d 'Check whether the cluster can take a change now (the pre-flight checks every change runs); changes nothing'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "move-leader" -d 'Hand leadership to another voter (by default the most caught-up one)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "joint" -d 'Several changes at once through joint consensus (memberctl engine only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand member; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and not __fish_seen_subcommand_from run help" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and not __fish_seen_subcommand_from run help" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and not __fish_seen_subcommand_from run help" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and not __fish_seen_subcommand_from run help" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and not __fish_seen_subcommand_from run help" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and not __fish_seen_subcommand_from run help" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and not __fish_seen_subcommand_from run help" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and not __fish_seen_subcommand_from run help" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and not __fish_seen_subcommand_from run help" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and not __fish_seen_subcommand_from run help" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and not __fish_seen_subcommand_from run help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and not __fish_seen_subcommand_from run help" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and not __fish_seen_subcommand_from run help" -f -a "run" -d 'Run one member of an embedded-engine cluster (flags as etcd\'s)'
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and not __fish_seen_subcommand_from run help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l name -d 'This member\'s name' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l data-dir -d 'Directory for the member\'s data (etcd\'s default: NAME.etcd)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l listen-client-urls -d 'URL to listen on for clients' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l advertise-client-urls -d 'Client URLs to advertise to the cluster' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l listen-metrics-urls -d 'Extra plain-HTTP URLs that serve /metrics and the health checks only (the client URL serves them too)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l listen-peer-urls -d 'URL to listen on for peers' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l initial-advertise-peer-urls -d 'Peer URLs to advertise to the cluster' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l initial-cluster -d 'The initial members, as name=peer-url pairs (etcd\'s default: this member alone, NAME=each --initial-advertise-peer-urls)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l initial-cluster-state -d 'new to bootstrap a cluster, existing to join one' -r -f -a "new\t'Bootstrap a new cluster with the members of --initial-cluster'
existing\t'Join a cluster this member was added to (`member add`)'"
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l initial-cluster-token -d 'Token that keeps IDs of different clusters apart' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l heartbeat-interval -d 'Time between heartbeats, in milliseconds' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l election-timeout -d 'Election timeout, in milliseconds' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l snapshot-count -d 'Compact the raft log every this many applied entries' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l max-learners -d 'Most learners the cluster may have at once' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l quota-backend-bytes -d 'Refuse writes that add data (etcd\'s NOSPACE alarm) once the state-machine file would pass this many bytes; 0: etcd\'s default, 2 GiB' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l corrupt-check-time -d 'How often the leader compares its key-value hash with each peer\'s, raising the CORRUPT alarm for a member whose hash differs (0: never, etcd\'s default)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l grpc-keepalive-interval -d 'How long a client connection may be idle before the server pings it (etcd\'s default: 2h)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l grpc-keepalive-timeout -d 'How long the server waits for a ping\'s answer before it closes the connection (etcd\'s default: 20s)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l max-request-bytes -d 'Largest write request the server takes, in bytes (etcd\'s default: 1.5 MiB)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l max-txn-ops -d 'Most operations in one branch of a transaction' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l auto-compaction-mode -d 'How --auto-compaction-retention counts: periodic (time) or revision' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l auto-compaction-retention -d 'History the leader keeps when it compacts by itself: hours or a duration (periodic), revisions (revision); 0: no automatic compaction' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l cert-file -d 'Certificate for client connections (TLS on the client URLs)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l key-file -d 'Key of --cert-file' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l trusted-ca-file -d 'CA that signs client certificates' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l client-cert-auth -d 'Require client certificates signed by --trusted-ca-file' -r -f -a "true\t''
false\t''"
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l client-crl-file -d 'Refuse client certificates this revocation list revokes (PEM or DER; needs --trusted-ca-file)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l client-cert-allowed-hostname -d 'Accept only client certificates whose subjectAltNames name this host (needs --trusted-ca-file)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l cipher-suites -d 'TLS 1.2 cipher suites the client and peer listeners offer, by Go\'s names, comma-separated (default: all the engine has; TLS 1.3\'s are always offered, as Go\'s)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l tls-min-version -d 'Lowest TLS version the listeners accept: TLS1.2 (default) or TLS1.3' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l tls-max-version -d 'Highest TLS version the listeners accept: TLS1.2 or TLS1.3 (default)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l auto-tls -d 'Without --cert-file/--key-file, serve the client URLs with a self-signed certificate made at start (kept in DATA-DIR/fixtures/client)' -r -f -a "true\t''
false\t''"
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l peer-auto-tls -d 'Without --peer-cert-file/--peer-key-file, serve and dial peers with a self-signed certificate made at start (DATA-DIR/fixtures/peer); peers\' certificates are then taken unverified, as etcd takes them' -r -f -a "true\t''
false\t''"
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l self-signed-cert-validity -d 'Years the certificates --auto-tls and --peer-auto-tls make last' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l peer-cert-file -d 'Certificate for peer connections (served, and presented to peers)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l peer-key-file -d 'Key of --peer-cert-file' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l peer-trusted-ca-file -d 'CA that signs the peers\' certificates' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l peer-client-cert-auth -d 'Require peer certificates signed by --peer-trusted-ca-file' -r -f -a "true\t''
false\t''"
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l peer-crl-file -d 'Refuse peer certificates this revocation list revokes (PEM or DER; needs --peer-trusted-ca-file)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l peer-cert-allowed-cn -d 'Accept only peer certificates with this common name (needs --peer-trusted-ca-file)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l peer-cert-allowed-hostname -d 'Accept only peer certificates whose subjectAltNames name this host (needs --peer-trusted-ca-file)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l auth-token -d 'How Authenticate\'s tokens are made: simple (etcd\'s default: random tokens every member learns through raft) or jwt,priv-key=FILE,pub-key=FILE,sign-method=METHOD[,ttl=DURATION] (signed tokens any member checks with the public key; METHOD one of RS256/384/512, PS256/384/512, ES256/384, HS256/384/512 with priv-key the secret, EdDSA; pub-key alone checks tokens without issuing any; ttl 5m by default)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l auth-token-ttl -d 'Seconds a simple token lives after its last use (0: etcd\'s default, 300)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l bcrypt-cost -d 'bcrypt\'s cost for the passwords of users added or changed here (4 to 31; any other is taken as 10 with a warning, as etcd takes it)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l initial-corrupt-check -d 'Before serving, compare this member\'s key-value hash with its peers\' at its revision; exit on a mismatch (etcd\'s --experimental-initial-corrupt-check)' -r -f -a "true\t''
false\t''"
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l strict-reconfig-check -d 'Refuse a membership change that would leave too few started voters or that the leader cannot reach every voter for (false: accept it, as etcd with --strict-reconfig-check=false)' -r -f -a "true\t''
false\t''"
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l max-concurrent-streams -d 'Most concurrent gRPC streams per client connection (etcd\'s default, math.MaxUint32: no limit)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l watch-progress-notify-interval -d 'How often an idle watch that asked for progress notifications gets one (etcd\'s default: 10m)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l force-new-cluster -d 'etcd\'s way back from a lost quorum: keep this member\'s data and make it the cluster\'s only member (then add the others back as new members)' -r -f -a "true\t''
false\t''"
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l fault-injection -d 'Test clusters only: serve the fault-injection service (memberctl.v1.Fault) on the client and peer URLs, with which any client can make this node drop the raft traffic to and from chosen peers, as a network partition would, and heal it'
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l fault-stale-reads -d 'Test clusters only, a deliberate bug: serve linearizable reads from this node\'s state without asking the leader (ReadIndex), so they may be stale; for showing that the linearizability checker catches it'
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l fault-ack-before-fsync -d 'Test clusters only, a deliberate bug: acknowledge raft log writes before they are written and fsync\'d (they are held in memory, as a disk\'s volatile cache would hold them), so a kill loses acknowledged writes; for showing that the linearizability checker catches it'
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from run" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "run" -d 'Run one member of an embedded-engine cluster (flags as etcd\'s)'
complete -c memberctl -n "__fish_memberctl_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -f -a "up" -d 'Start a local test cluster of embedded-engine nodes on loopback (or restart a stopped one)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -f -a "start-node" -d 'Start the node of a member that `member add` has just added'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -f -a "status" -d 'Show the local cluster\'s nodes, processes and leader'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -f -a "down" -d 'Stop the local cluster\'s node processes (only those it started)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -f -a "link" -d 'Change the link between the members of a cluster started with `cluster up --link`: its settings, or a stall'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -f -a "link-serve" -d 'Run the link model between the local cluster\'s members (started by `cluster up --link`)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -f -a "chaos" -d 'Inject seeded random faults into the local cluster for a while (kill -9, wipe, pause, link stalls, the acting autopilot killed), one JSON line per fault\'s start and end'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -f -a "rehearse" -d 'Rehearse a membership change on the local cluster under a steady writer, and draw what it did: report.html (charts, summary) and report.json'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -f -a "recover" -d 'Bring back a local cluster that lost its quorum: restart the best survivor with --force-new-cluster, then add the others back as new members'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and not __fish_seen_subcommand_from up start-node status down link link-serve chaos rehearse recover help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l nodes -d 'Number of members' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l dir -d 'Directory holding the cluster\'s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l max-learners -d 'Most learners the cluster may have at once' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l snapshot-count -d 'Compact each node\'s raft log every this many applied entries' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l quota-backend-bytes -d 'Refuse writes that add data (etcd\'s NOSPACE alarm) once a node\'s state-machine file would pass this many bytes; 0: etcd\'s default, 2 GiB' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l heartbeat-interval -d 'Time between heartbeats of every node, in milliseconds' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l election-timeout -d 'Election timeout of every node, in milliseconds' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l from-snapshot -d 'Start a new cluster holding the data of this snapshot file: `etcdctl snapshot save` of an etcd (3.4-3.7) or a memberctl snapshot; every node is restored from it' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l link -d 'Put a link between every pair of members, both ways: round trip, bandwidth and queue, e.g. rtt=40ms,bandwidth=50mbit,queue=4mb; add shared=uplink for one queue per sending member instead of one per pair (shared=all: one for everyone), per-connection=SIZE for the most of a queue one connection may hold, so that connections take turns as on a sending host, instead of one FIFO as at a router (a rehearsal on the operator\'s own link; kept across restarts, honoured by start-node)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l etcd -d 'Run the members on this etcd server binary (3.4-3.7, e.g. "$(command -v etcd)") instead of memberctl\'s engine: a rehearsal on the operator\'s own etcd (kept across restarts; --from-snapshot restores with the etcdutl or etcdctl beside it)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l etcd-flag -d 'With --etcd: give every member this etcd flag too, after memberctl\'s (repeatable; a flag and its value as one word: --etcd-flag=--auto-compaction-retention=1); the flags memberctl sets itself are refused' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l fault-injection -d 'Test clusters only: start every node with --fault-injection (kept in the cluster\'s state, so start-node and restarts use it too)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l fault-stale-reads -d 'Test clusters only, a deliberate bug: start every node with --fault-stale-reads (local linearizable reads)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l fault-ack-before-fsync -d 'Test clusters only, a deliberate bug: start every node with --fault-ack-before-fsync (acknowledged log writes held in memory)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l skip-hash-check -d 'With --from-snapshot: restore an etcd database that has no SHA-256 trailer (copied from a data directory), unchecked'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from up" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from start-node" -l dir -d 'Directory holding the cluster\'s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from start-node" -l peer-url -d 'Which added member, when several are waiting to start' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from start-node" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from start-node" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from start-node" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from start-node" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from start-node" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from start-node" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from start-node" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from start-node" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from start-node" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from start-node" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from start-node" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from start-node" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from status" -l dir -d 'Directory holding the cluster\'s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from status" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from status" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from status" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from status" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from status" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from status" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from status" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from status" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from status" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from status" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from down" -l dir -d 'Directory holding the cluster\'s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from down" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from down" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from down" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from down" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from down" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from down" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from down" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from down" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from down" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from down" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from down" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from down" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -l dir -d 'Directory holding the cluster\'s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -l set -d 'New settings for every member pair from now on, e.g. rtt=60ms,bandwidth=50mbit,queue=4mb' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -l stall -d 'Deliver nothing for this long (nothing is lost: bytes wait), as a path that stalls' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -l node -d 'With --stall: only the links to and from this node' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link-serve" -l dir -d 'Directory holding the cluster\'s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link-serve" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link-serve" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link-serve" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link-serve" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link-serve" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link-serve" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link-serve" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link-serve" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link-serve" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link-serve" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link-serve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from link-serve" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l dir -d 'Directory holding the cluster\'s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l seed -d 'The seed of every random draw: the same seed replays the same schedule [default: from the clock, printed on stderr]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l duration -d 'How long to inject faults; those in progress end then' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l faults -d 'The faults to draw from, comma-separated [default: all; stall and slow only with a link]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l max-concurrent -d 'The most faults in progress at once' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l every -d 'The mean time between the starts of two faults' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l hold -d 'The longest a fault lasts (each lasts half to all of it)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l break-quorum -d 'Allow more voters down or cut off at once than the cluster can lose (its quorum goes)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from chaos" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l dir -d 'Directory holding the cluster\'s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l writer-rate -d 'Puts per second of the steady writer (N or N/s)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l value-size -d 'Bytes of each put\'s value' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l report -d 'Directory for report.html and report.json (made if missing)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l before -d 'How long the writer runs before the change' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l after -d 'How long the writer runs after the cluster settled' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l settle-timeout -d 'The longest wait for the cluster to settle after the change (one leader, every member answering, their indexes close)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l timeout -d 'The longest the change may run (it is stopped then)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from rehearse" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from recover" -l dir -d 'Directory holding the cluster\'s state, data and logs [env: MEMBERCTL_CLUSTER_DIR] [default: .memberctl]' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from recover" -l from -d 'The survivor to recover from (default: the one with the most of the log)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from recover" -l timeout -d 'How long to wait for each member added back to start and catch up' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from recover" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from recover" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from recover" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from recover" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from recover" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from recover" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from recover" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from recover" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from recover" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from recover" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from recover" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from recover" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "up" -d 'Start a local test cluster of embedded-engine nodes on loopback (or restart a stopped one)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "start-node" -d 'Start the node of a member that `member add` has just added'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "status" -d 'Show the local cluster\'s nodes, processes and leader'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "down" -d 'Stop the local cluster\'s node processes (only those it started)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "link" -d 'Change the link between the members of a cluster started with `cluster up --link`: its settings, or a stall'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "link-serve" -d 'Run the link model between the local cluster\'s members (started by `cluster up --link`)'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "chaos" -d 'Inject seeded random faults into the local cluster for a while (kill -9, wipe, pause, link stalls, the acting autopilot killed), one JSON line per fault\'s start and end'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "rehearse" -d 'Rehearse a membership change on the local cluster under a steady writer, and draw what it did: report.html (charts, summary) and report.json'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "recover" -d 'Bring back a local cluster that lost its quorum: restart the best survivor with --force-new-cluster, then add the others back as new members'
complete -c memberctl -n "__fish_memberctl_using_subcommand cluster; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l interval -d 'Time between two looks at the cluster' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l heartbeat -d 'A decision is printed when it changes; the same decision again only once this long (0: every look)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l dead-after -d 'A voter unreachable this long, that the leader has lost too, is dead' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l standby -d 'The learners kept as standbys, by name (repeatable) [default: any started learner]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l stable-for -d 'How long a standby must have been ready (caught up) without a break before it takes a dead voter\'s place' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l min-voters -d 'The fewest voters a removal may leave (at least 3, which can still lose one)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l voters -d 'The voters to keep: while fewer (a dead voter was removed without a ready standby), a ready standby is promoted [default: --min-voters, with --cleanup-dead only]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l stalled-for -d 'A started learner whose index stands still behind the leader\'s this long is pruned, as `member prune` does' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l name -d 'This autopilot\'s name in the election among autopilots (key prefix memberctl/autopilot/) [default: HOST-PID]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l lease-ttl -d 'The election lease\'s time to live: how soon another autopilot takes over when this one dies' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l timeout -d 'How long one action may wait (a standby\'s catch-up, leadership moves)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l listen-metrics -d 'Serve Prometheus metrics (/metrics) and a health check (/health) on this address, e.g. 127.0.0.1:9479' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l skip-check -d 'Pass this pre-flight check knowingly, saying so (repeatable)' -r -f -a "quorum\t''
alarms\t''
learners\t''
versions\t''
db\t''
apply\t''
disk\t''
network\t''
stability\t''
catch-up\t''
peer-tls\t''
force-new-cluster\t''
upgrade\t''"
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l cleanup-dead -d 'Remove a dead voter even without a standby, while --min-voters remain'
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l start-standby -d 'On the local test cluster: when no learner exists, add one and start it (`member add --learner` + `cluster start-node`)'
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l dry-run -d 'Decide and report every decision; change nothing'
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand autopilot" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -f -a "save" -d 'Save a point-in-time copy of one member\'s state to FILE (Maintenance.Snapshot; on etcd, etcd\'s own format)'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -f -a "status" -d 'Check a snapshot file whole (memberctl\'s, or etcd\'s: its SHA-256 trailer) and show what it holds'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -f -a "restore" -d 'Create the data directory of a member of a new cluster from a snapshot file, memberctl\'s or etcd\'s (as `etcdctl snapshot restore`); start it with `node run` and the same flags'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and not __fish_seen_subcommand_from save status restore help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from save" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from save" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from save" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from save" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from status" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from status" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l name -d 'The member\'s name' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l data-dir -d 'The new data directory (must not exist, or be empty)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l initial-cluster -d 'The initial members, as name=peer-url pairs' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l initial-advertise-peer-urls -d 'This member\'s peer URLs' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l initial-cluster-token -d 'Token that keeps IDs of different clusters apart' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l bump-revision -d 'Move the revision this far ahead of the snapshot\'s (with --mark-compacted, as etcdutl\'s): watchers and caches holding revisions of the old cluster see them compacted, not reused; restore every member with the same amount' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l skip-hash-check -d 'Restore an etcd database that has no SHA-256 trailer (copied from a data directory\'s member/snap/db), unchecked'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l mark-compacted -d 'Mark the bumped revision compacted (with --bump-revision, as etcdutl\'s): a read or watch from an earlier revision is answered "compacted"'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from restore" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from help" -f -a "save" -d 'Save a point-in-time copy of one member\'s state to FILE (Maintenance.Snapshot; on etcd, etcd\'s own format)'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from help" -f -a "status" -d 'Check a snapshot file whole (memberctl\'s, or etcd\'s: its SHA-256 trailer) and show what it holds'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from help" -f -a "restore" -d 'Create the data directory of a member of a new cluster from a snapshot file, memberctl\'s or etcd\'s (as `etcdctl snapshot restore`); start it with `node run` and the same flags'
complete -c memberctl -n "__fish_memberctl_using_subcommand snapshot; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memberctl -n "__fish_memberctl_using_subcommand completion" -l endpoints -d 'Client URLs of the cluster, comma-separated; each is tried in turn [env: MEMBERCTL_ENDPOINTS, then ETCDCTL_ENDPOINTS] [default: the local cluster in .memberctl (or MEMBERCTL_CLUSTER_DIR) if it is up, else 127.0.0.1:2379]' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand completion" -l dial-timeout -d 'How long to wait for a connection to an endpoint' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand completion" -l command-timeout -d 'How long one request may take (and how long to retry "unhealthy cluster")' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand completion" -s w -l write-out -d 'Output format [default: table on a terminal, simple otherwise]' -r -f -a "table\t'A table for people'
json\t'One JSON document with a stable schema, for scripts'
simple\t'Plain lines, like etcdctl\'s default'"
complete -c memberctl -n "__fish_memberctl_using_subcommand completion" -l cacert -d 'CA bundle to verify the servers\' certificates (endpoints without a scheme then use https)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand completion" -l cert -d 'Client certificate for TLS, for servers that require one (with --key)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand completion" -l key -d 'Client key for TLS (with --cert)' -r -F
complete -c memberctl -n "__fish_memberctl_using_subcommand completion" -l user -d 'User name for authentication, as NAME or NAME:PASSWORD (asked for on a terminal when missing)' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand completion" -l password -d 'Password for authentication' -r
complete -c memberctl -n "__fish_memberctl_using_subcommand completion" -l insecure-skip-tls-verify -d 'Encrypt but do not verify the servers\' certificates (test clusters only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand completion" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c memberctl -n "__fish_memberctl_using_subcommand completion" -s V -l version -d 'Print version'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and not __fish_seen_subcommand_from member node cluster autopilot snapshot completion help" -f -a "member" -d 'List, add, promote, remove, update members and show their status'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and not __fish_seen_subcommand_from member node cluster autopilot snapshot completion help" -f -a "node" -d 'Run a member of the bundled Raft engine (serves etcd\'s API)'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and not __fish_seen_subcommand_from member node cluster autopilot snapshot completion help" -f -a "cluster" -d 'A local test cluster of bundled-engine nodes, to rehearse changes'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and not __fish_seen_subcommand_from member node cluster autopilot snapshot completion help" -f -a "autopilot" -d 'Keep watch on the cluster: replace dead voters with a standby learner, prune stuck learners; one autopilot acts per cluster'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and not __fish_seen_subcommand_from member node cluster autopilot snapshot completion help" -f -a "snapshot" -d 'Save, check and restore snapshots of a member\'s state'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and not __fish_seen_subcommand_from member node cluster autopilot snapshot completion help" -f -a "completion" -d 'Print the shell completion script for SHELL'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and not __fish_seen_subcommand_from member node cluster autopilot snapshot completion help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "list" -d 'List the members of the cluster'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "add" -d 'Add a member, after checking its peer URLs (prefer --learner)'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "promote" -d 'Promote a learner to a voter once it has caught up with the leader'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "remove" -d 'Remove a member, unless the rest could not form a quorum'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "prune" -d 'Remove learners that never started or stand still (and, with --dead-voters, dead voters), one at a time'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "update" -d 'Change a member\'s peer URLs, after checking them'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "replace" -d 'Replace a member in the order the cluster calls for: a dead one removed first, then the new one added, started, caught up and promoted; a live one replaced add-first'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "apply" -d 'Reach a target membership (the voters wanted) safely, one step at a time; run it again to resume'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "status" -d 'Show each member\'s reachability, raft term, index, applied index, lag and version, and the fault tolerance'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "check" -d 'Check whether the cluster can take a change now (the pre-flight checks every change runs); changes nothing'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "move-leader" -d 'Hand leadership to another voter (by default the most caught-up one)'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from member" -f -a "joint" -d 'Several changes at once through joint consensus (memberctl engine only)'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "run" -d 'Run one member of an embedded-engine cluster (flags as etcd\'s)'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from cluster" -f -a "up" -d 'Start a local test cluster of embedded-engine nodes on loopback (or restart a stopped one)'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from cluster" -f -a "start-node" -d 'Start the node of a member that `member add` has just added'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from cluster" -f -a "status" -d 'Show the local cluster\'s nodes, processes and leader'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from cluster" -f -a "down" -d 'Stop the local cluster\'s node processes (only those it started)'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from cluster" -f -a "link" -d 'Change the link between the members of a cluster started with `cluster up --link`: its settings, or a stall'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from cluster" -f -a "link-serve" -d 'Run the link model between the local cluster\'s members (started by `cluster up --link`)'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from cluster" -f -a "chaos" -d 'Inject seeded random faults into the local cluster for a while (kill -9, wipe, pause, link stalls, the acting autopilot killed), one JSON line per fault\'s start and end'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from cluster" -f -a "rehearse" -d 'Rehearse a membership change on the local cluster under a steady writer, and draw what it did: report.html (charts, summary) and report.json'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from cluster" -f -a "recover" -d 'Bring back a local cluster that lost its quorum: restart the best survivor with --force-new-cluster, then add the others back as new members'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from snapshot" -f -a "save" -d 'Save a point-in-time copy of one member\'s state to FILE (Maintenance.Snapshot; on etcd, etcd\'s own format)'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from snapshot" -f -a "status" -d 'Check a snapshot file whole (memberctl\'s, or etcd\'s: its SHA-256 trailer) and show what it holds'
complete -c memberctl -n "__fish_memberctl_using_subcommand help; and __fish_seen_subcommand_from snapshot" -f -a "restore" -d 'Create the data directory of a member of a new cluster from a snapshot file, memberctl\'s or etcd\'s (as `etcdctl snapshot restore`); start it with `node run` and the same flags'
