_memberctl() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="memberctl"
                ;;
            memberctl,autopilot)
                cmd="memberctl__subcmd__autopilot"
                ;;
            memberctl,cluster)
                cmd="memberctl__subcmd__cluster"
                ;;
            memberctl,completion)
                cmd="memberctl__subcmd__completion"
                ;;
            memberctl,help)
                cmd="memberctl__subcmd__help"
                ;;
            memberctl,member)
                cmd="memberctl__subcmd__member"
                ;;
            memberctl,node)
                cmd="memberctl__subcmd__node"
                ;;
            memberctl,snapshot)
                cmd="memberctl__subcmd__snapshot"
                ;;
            memberctl__subcmd__cluster,chaos)
                cmd="memberctl__subcmd__cluster__subcmd__chaos"
                ;;
            memberctl__subcmd__cluster,down)
                cmd="memberctl__subcmd__cluster__subcmd__down"
                ;;
            memberctl__subcmd__cluster,help)
                cmd="memberctl__subcmd__cluster__subcmd__help"
                ;;
            memberctl__subcmd__cluster,link)
                cmd="memberctl__subcmd__cluster__subcmd__link"
                ;;
            memberctl__subcmd__cluster,link-serve)
                cmd="memberctl__subcmd__cluster__subcmd__link__subcmd__serve"
                ;;
            memberctl__subcmd__cluster,recover)
                cmd="memberctl__subcmd__cluster__subcmd__recover"
                ;;
            memberctl__subcmd__cluster,rehearse)
                cmd="memberctl__subcmd__cluster__subcmd__rehearse"
                ;;
            memberctl__subcmd__cluster,start-node)
                cmd="memberctl__subcmd__cluster__subcmd__start__subcmd__node"
                ;;
            memberctl__subcmd__cluster,status)
                cmd="memberctl__subcmd__cluster__subcmd__status"
                ;;
            memberctl__subcmd__cluster,up)
                cmd="memberctl__subcmd__cluster__subcmd__up"
                ;;
            memberctl__subcmd__cluster__subcmd__help,chaos)
                cmd="memberctl__subcmd__cluster__subcmd__help__subcmd__chaos"
                ;;
            memberctl__subcmd__cluster__subcmd__help,down)
                cmd="memberctl__subcmd__cluster__subcmd__help__subcmd__down"
                ;;
            memberctl__subcmd__cluster__subcmd__help,help)
                cmd="memberctl__subcmd__cluster__subcmd__help__subcmd__help"
                ;;
            memberctl__subcmd__cluster__subcmd__help,link)
                cmd="memberctl__subcmd__cluster__subcmd__help__subcmd__link"
                ;;
            memberctl__subcmd__cluster__subcmd__help,link-serve)
                cmd="memberctl__subcmd__cluster__subcmd__help__subcmd__link__subcmd__serve"
                ;;
            memberctl__subcmd__cluster__subcmd__help,recover)
                cmd="memberctl__subcmd__cluster__subcmd__help__subcmd__recover"
                ;;
            memberctl__subcmd__cluster__subcmd__help,rehearse)
                cmd="memberctl__subcmd__cluster__subcmd__help__subcmd__rehearse"
                ;;
            memberctl__subcmd__cluster__subcmd__help,start-node)
                cmd="memberctl__subcmd__cluster__subcmd__help__subcmd__start__subcmd__node"
                ;;
            memberctl__subcmd__cluster__subcmd__help,status)
                cmd="memberctl__subcmd__cluster__subcmd__help__subcmd__status"
                ;;
            memberctl__subcmd__cluster__subcmd__help,up)
                cmd="memberctl__subcmd__cluster__subcmd__help__subcmd__up"
                ;;
            memberctl__subcmd__help,autopilot)
                cmd="memberctl__subcmd__help__subcmd__autopilot"
                ;;
            memberctl__subcmd__help,cluster)
                cmd="memberctl__subcmd__help__subcmd__cluster"
                ;;
            memberctl__subcmd__help,completion)
                cmd="memberctl__subcmd__help__subcmd__completion"
                ;;
            memberctl__subcmd__help,help)
                cmd="memberctl__subcmd__help__subcmd__help"
                ;;
            memberctl__subcmd__help,member)
                cmd="memberctl__subcmd__help__subcmd__member"
                ;;
            memberctl__subcmd__help,node)
                cmd="memberctl__subcmd__help__subcmd__node"
                ;;
            memberctl__subcmd__help,snapshot)
                cmd="memberctl__subcmd__help__subcmd__snapshot"
                ;;
            memberctl__subcmd__help__subcmd__cluster,chaos)
                cmd="memberctl__subcmd__help__subcmd__cluster__subcmd__chaos"
                ;;
            memberctl__subcmd__help__subcmd__cluster,down)
                cmd="memberctl__subcmd__help__subcmd__cluster__subcmd__down"
                ;;
            memberctl__subcmd__help__subcmd__cluster,link)
                cmd="memberctl__subcmd__help__subcmd__cluster__subcmd__link"
                ;;
            memberctl__subcmd__help__subcmd__cluster,link-serve)
                cmd="memberctl__subcmd__help__subcmd__cluster__subcmd__link__subcmd__serve"
                ;;
            memberctl__subcmd__help__subcmd__cluster,recover)
                cmd="memberctl__subcmd__help__subcmd__cluster__subcmd__recover"
                ;;
            memberctl__subcmd__help__subcmd__cluster,rehearse)
                cmd="memberctl__subcmd__help__subcmd__cluster__subcmd__rehearse"
                ;;
            memberctl__subcmd__help__subcmd__cluster,start-node)
                cmd="memberctl__subcmd__help__subcmd__cluster__subcmd__start__subcmd__node"
                ;;
            memberctl__subcmd__help__subcmd__cluster,status)
                cmd="memberctl__subcmd__help__subcmd__cluster__subcmd__status"
                ;;
            memberctl__subcmd__help__subcmd__cluster,up)
                cmd="memberctl__subcmd__help__subcmd__cluster__subcmd__up"
                ;;
            memberctl__subcmd__help__subcmd__member,add)
                cmd="memberctl__subcmd__help__subcmd__member__subcmd__add"
                ;;
            memberctl__subcmd__help__subcmd__member,apply)
                cmd="memberctl__subcmd__help__subcmd__member__subcmd__apply"
                ;;
            memberctl__subcmd__help__subcmd__member,check)
                cmd="memberctl__subcmd__help__subcmd__member__subcmd__check"
                ;;
            memberctl__subcmd__help__subcmd__member,joint)
                cmd="memberctl__subcmd__help__subcmd__member__subcmd__joint"
                ;;
            memberctl__subcmd__help__subcmd__member,list)
                cmd="memberctl__subcmd__help__subcmd__member__subcmd__list"
                ;;
            memberctl__subcmd__help__subcmd__member,move-leader)
                cmd="memberctl__subcmd__help__subcmd__member__subcmd__move__subcmd__leader"
                ;;
            memberctl__subcmd__help__subcmd__member,promote)
                cmd="memberctl__subcmd__help__subcmd__member__subcmd__promote"
                ;;
            memberctl__subcmd__help__subcmd__member,prune)
                cmd="memberctl__subcmd__help__subcmd__member__subcmd__prune"
                ;;
            memberctl__subcmd__help__subcmd__member,remove)
                cmd="memberctl__subcmd__help__subcmd__member__subcmd__remove"
                ;;
            memberctl__subcmd__help__subcmd__member,replace)
                cmd="memberctl__subcmd__help__subcmd__member__subcmd__replace"
                ;;
            memberctl__subcmd__help__subcmd__member,status)
                cmd="memberctl__subcmd__help__subcmd__member__subcmd__status"
                ;;
            memberctl__subcmd__help__subcmd__member,update)
                cmd="memberctl__subcmd__help__subcmd__member__subcmd__update"
                ;;
            memberctl__subcmd__help__subcmd__member__subcmd__joint,enter)
                cmd="memberctl__subcmd__help__subcmd__member__subcmd__joint__subcmd__enter"
                ;;
            memberctl__subcmd__help__subcmd__member__subcmd__joint,leave)
                cmd="memberctl__subcmd__help__subcmd__member__subcmd__joint__subcmd__leave"
                ;;
            memberctl__subcmd__help__subcmd__member__subcmd__joint,status)
                cmd="memberctl__subcmd__help__subcmd__member__subcmd__joint__subcmd__status"
                ;;
            memberctl__subcmd__help__subcmd__node,run)
                cmd="memberctl__subcmd__help__subcmd__node__subcmd__run"
                ;;
            memberctl__subcmd__help__subcmd__snapshot,restore)
                cmd="memberctl__subcmd__help__subcmd__snapshot__subcmd__restore"
                ;;
            memberctl__subcmd__help__subcmd__snapshot,save)
                cmd="memberctl__subcmd__help__subcmd__snapshot__subcmd__save"
                ;;
            memberctl__subcmd__help__subcmd__snapshot,status)
                cmd="memberctl__subcmd__help__subcmd__snapshot__subcmd__status"
                ;;
            memberctl__subcmd__member,add)
                cmd="memberctl__subcmd__member__subcmd__add"
                ;;
            memberctl__subcmd__member,apply)
                cmd="memberctl__subcmd__member__subcmd__apply"
                ;;
            memberctl__subcmd__member,check)
                cmd="memberctl__subcmd__member__subcmd__check"
                ;;
            memberctl__subcmd__member,help)
                cmd="memberctl__subcmd__member__subcmd__help"
                ;;
            memberctl__subcmd__member,joint)
                cmd="memberctl__subcmd__member__subcmd__joint"
                ;;
            memberctl__subcmd__member,list)
                cmd="memberctl__subcmd__member__subcmd__list"
                ;;
            memberctl__subcmd__member,move-leader)
                cmd="memberctl__subcmd__member__subcmd__move__subcmd__leader"
                ;;
            memberctl__subcmd__member,promote)
                cmd="memberctl__subcmd__member__subcmd__promote"
                ;;
            memberctl__subcmd__member,prune)
                cmd="memberctl__subcmd__member__subcmd__prune"
                ;;
            memberctl__subcmd__member,remove)
                cmd="memberctl__subcmd__member__subcmd__remove"
                ;;
            memberctl__subcmd__member,replace)
                cmd="memberctl__subcmd__member__subcmd__replace"
                ;;
            memberctl__subcmd__member,status)
                cmd="memberctl__subcmd__member__subcmd__status"
                ;;
            memberctl__subcmd__member,update)
                cmd="memberctl__subcmd__member__subcmd__update"
                ;;
            memberctl__subcmd__member__subcmd__help,add)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__add"
                ;;
            memberctl__subcmd__member__subcmd__help,apply)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__apply"
                ;;
            memberctl__subcmd__member__subcmd__help,check)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__check"
                ;;
            memberctl__subcmd__member__subcmd__help,help)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__help"
                ;;
            memberctl__subcmd__member__subcmd__help,joint)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__joint"
                ;;
            memberctl__subcmd__member__subcmd__help,list)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__list"
                ;;
            memberctl__subcmd__member__subcmd__help,move-leader)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__move__subcmd__leader"
                ;;
            memberctl__subcmd__member__subcmd__help,promote)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__promote"
                ;;
            memberctl__subcmd__member__subcmd__help,prune)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__prune"
                ;;
            memberctl__subcmd__member__subcmd__help,remove)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__remove"
                ;;
            memberctl__subcmd__member__subcmd__help,replace)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__replace"
                ;;
            memberctl__subcmd__member__subcmd__help,status)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__status"
                ;;
            memberctl__subcmd__member__subcmd__help,update)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__update"
                ;;
            memberctl__subcmd__member__subcmd__help__subcmd__joint,enter)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__joint__subcmd__enter"
                ;;
            memberctl__subcmd__member__subcmd__help__subcmd__joint,leave)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__joint__subcmd__leave"
                ;;
            memberctl__subcmd__member__subcmd__help__subcmd__joint,status)
                cmd="memberctl__subcmd__member__subcmd__help__subcmd__joint__subcmd__status"
                ;;
            memberctl__subcmd__member__subcmd__joint,enter)
                cmd="memberctl__subcmd__member__subcmd__joint__subcmd__enter"
                ;;
            memberctl__subcmd__member__subcmd__joint,help)
                cmd="memberctl__subcmd__member__subcmd__joint__subcmd__help"
                ;;
            memberctl__subcmd__member__subcmd__joint,leave)
                cmd="memberctl__subcmd__member__subcmd__joint__subcmd__leave"
                ;;
            memberctl__subcmd__member__subcmd__joint,status)
                cmd="memberctl__subcmd__member__subcmd__joint__subcmd__status"
                ;;
            memberctl__subcmd__member__subcmd__joint__subcmd__help,enter)
                cmd="memberctl__subcmd__member__subcmd__joint__subcmd__help__subcmd__enter"
                ;;
            memberctl__subcmd__member__subcmd__joint__subcmd__help,help)
                cmd="memberctl__subcmd__member__subcmd__joint__subcmd__help__subcmd__help"
                ;;
            memberctl__subcmd__member__subcmd__joint__subcmd__help,leave)
                cmd="memberctl__subcmd__member__subcmd__joint__subcmd__help__subcmd__leave"
                ;;
            memberctl__subcmd__member__subcmd__joint__subcmd__help,status)
                cmd="memberctl__subcmd__member__subcmd__joint__subcmd__help__subcmd__status"
                ;;
            memberctl__subcmd__node,help)
                cmd="memberctl__subcmd__node__subcmd__help"
                ;;
            memberctl__subcmd__node,run)
                cmd="memberctl__subcmd__node__subcmd__run"
                ;;
            memberctl__subcmd__node__subcmd__help,help)
                cmd="memberctl__subcmd__node__subcmd__help__subcmd__help"
                ;;
            memberctl__subcmd__node__subcmd__help,run)
                cmd="memberctl__subcmd__node__subcmd__help__subcmd__run"
                ;;
            memberctl__subcmd__snapshot,help)
                cmd="memberctl__subcmd__snapshot__subcmd__help"
                ;;
            memberctl__subcmd__snapshot,restore)
                cmd="memberctl__subcmd__snapshot__subcmd__restore"
                ;;
            memberctl__subcmd__snapshot,save)
                cmd="memberctl__subcmd__snapshot__subcmd__save"
                ;;
            memberctl__subcmd__snapshot,status)
                cmd="memberctl__subcmd__snapshot__subcmd__status"
                ;;
            memberctl__subcmd__snapshot__subcmd__help,help)
                cmd="memberctl__subcmd__snapshot__subcmd__help__subcmd__help"
                ;;
            memberctl__subcmd__snapshot__subcmd__help,restore)
                cmd="memberctl__subcmd__snapshot__subcmd__help__subcmd__restore"
                ;;
            memberctl__subcmd__snapshot__subcmd__help,save)
                cmd="memberctl__subcmd__snapshot__subcmd__help__subcmd__save"
                ;;
            memberctl__subcmd__snapshot__subcmd__help,status)
                cmd="memberctl__subcmd__snapshot__subcmd__help__subcmd__status"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        memberctl)
            opts="-w -h -V --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version member node cluster autopilot snapshot completion help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__autopilot)
            opts="-w -h -V --interval --heartbeat --dead-after --standby --stable-for --cleanup-dead --min-voters --voters --stalled-for --start-standby --name --lease-ttl --dry-run --timeout --listen-metrics --skip-check --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --heartbeat)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dead-after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --standby)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stable-for)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-voters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --voters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stalled-for)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --lease-ttl)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --listen-metrics)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --skip-check)
                    COMPREPLY=($(compgen -W "quorum alarms learners versions db apply disk network stability catch-up peer-tls force-new-cluster upgrade" -- "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster)
            opts="-w -h -V --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version up start-node status down link link-serve chaos rehearse recover help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__chaos)
            opts="-w -h -V --dir --seed --duration --faults --max-concurrent --break-quorum --every --hold --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --seed)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --duration)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --faults)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-concurrent)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --every)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hold)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__down)
            opts="-w -h -V --dir --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__help)
            opts="up start-node status down link link-serve chaos rehearse recover help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__help__subcmd__chaos)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__help__subcmd__down)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__help__subcmd__link)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__help__subcmd__link__subcmd__serve)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__help__subcmd__recover)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__help__subcmd__rehearse)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__help__subcmd__start__subcmd__node)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__help__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__help__subcmd__up)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__link)
            opts="-w -h -V --dir --set --stall --node --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --stall)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__link__subcmd__serve)
            opts="-w -h -V --dir --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__recover)
            opts="-w -h -V --dir --from --timeout --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__rehearse)
            opts="-w -h -V --dir --writer-rate --value-size --report --before --after --settle-timeout --timeout --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --writer-rate)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --value-size)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --report)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --before)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --settle-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__start__subcmd__node)
            opts="-w -h -V --dir --peer-url --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__status)
            opts="-w -h -V --dir --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__cluster__subcmd__up)
            opts="-w -h -V --nodes --dir --max-learners --snapshot-count --quota-backend-bytes --heartbeat-interval --election-timeout --fault-injection --fault-stale-reads --fault-ack-before-fsync --from-snapshot --skip-hash-check --link --etcd --etcd-flag --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --nodes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-learners)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --snapshot-count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --quota-backend-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --heartbeat-interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --election-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --from-snapshot)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --link)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --etcd)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --etcd-flag)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__completion)
            opts="-w -h -V --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help)
            opts="member node cluster autopilot snapshot completion help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__autopilot)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__cluster)
            opts="up start-node status down link link-serve chaos rehearse recover"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__cluster__subcmd__chaos)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__cluster__subcmd__down)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__cluster__subcmd__link)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__cluster__subcmd__link__subcmd__serve)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__cluster__subcmd__recover)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__cluster__subcmd__rehearse)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__cluster__subcmd__start__subcmd__node)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__cluster__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__cluster__subcmd__up)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__completion)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member)
            opts="list add promote remove prune update replace apply status check move-leader joint"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member__subcmd__add)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member__subcmd__apply)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member__subcmd__joint)
            opts="enter leave status"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member__subcmd__joint__subcmd__enter)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member__subcmd__joint__subcmd__leave)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member__subcmd__joint__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member__subcmd__move__subcmd__leader)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member__subcmd__promote)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member__subcmd__prune)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member__subcmd__remove)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member__subcmd__replace)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__member__subcmd__update)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__node)
            opts="run"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__node__subcmd__run)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__snapshot)
            opts="save status restore"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__snapshot__subcmd__restore)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__snapshot__subcmd__save)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__help__subcmd__snapshot__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member)
            opts="-w -h -V --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version list add promote remove prune update replace apply status check move-leader joint help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__add)
            opts="-w -h -V --peer-urls --learner --dry-run --skip-check --link-bandwidth --snapshot-count --peer-cert --peer-key --peer-trusted-ca --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --peer-urls)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --skip-check)
                    COMPREPLY=($(compgen -W "quorum alarms learners versions db apply disk network stability catch-up peer-tls force-new-cluster upgrade" -- "${cur}"))
                    return 0
                    ;;
                --link-bandwidth)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --snapshot-count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-trusted-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__apply)
            opts="-w -h -V --target --target-file --dry-run --force --timeout --poll-interval --start-local --skip-check --link-bandwidth --snapshot-count --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --target)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --target-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --poll-interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --skip-check)
                    COMPREPLY=($(compgen -W "quorum alarms learners versions db apply disk network stability catch-up peer-tls force-new-cluster upgrade" -- "${cur}"))
                    return 0
                    ;;
                --link-bandwidth)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --snapshot-count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__check)
            opts="-w -h -V --for --link-bandwidth --snapshot-count --peer-urls --peer-cert --peer-key --peer-trusted-ca --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --for)
                    COMPREPLY=($(compgen -W "add add-voter promote remove update replace upgrade" -- "${cur}"))
                    return 0
                    ;;
                --link-bandwidth)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --snapshot-count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-urls)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-trusted-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help)
            opts="list add promote remove prune update replace apply status check move-leader joint help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__add)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__apply)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__joint)
            opts="enter leave status"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__joint__subcmd__enter)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__joint__subcmd__leave)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__joint__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__move__subcmd__leader)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__promote)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__prune)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__remove)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__replace)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__help__subcmd__update)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__joint)
            opts="-w -h -V --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version enter leave status help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__joint__subcmd__enter)
            opts="-w -h -V --add-learner --promote --demote --remove --dry-run --force --no-wait --skip-check --link-bandwidth --snapshot-count --timeout --poll-interval --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --add-learner)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --promote)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --demote)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --remove)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --skip-check)
                    COMPREPLY=($(compgen -W "quorum alarms learners versions db apply disk network stability catch-up peer-tls force-new-cluster upgrade" -- "${cur}"))
                    return 0
                    ;;
                --link-bandwidth)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --snapshot-count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --poll-interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__joint__subcmd__help)
            opts="enter leave status help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__joint__subcmd__help__subcmd__enter)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__joint__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__joint__subcmd__help__subcmd__leave)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__joint__subcmd__help__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__joint__subcmd__leave)
            opts="-w -h -V --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__joint__subcmd__status)
            opts="-w -h -V --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__list)
            opts="-w -h -V --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__move__subcmd__leader)
            opts="-w -h -V --timeout --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__promote)
            opts="-w -h -V --no-wait --stable-for --skip-check --link-bandwidth --snapshot-count --timeout --poll-interval --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --stable-for)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --skip-check)
                    COMPREPLY=($(compgen -W "quorum alarms learners versions db apply disk network stability catch-up peer-tls force-new-cluster upgrade" -- "${cur}"))
                    return 0
                    ;;
                --link-bandwidth)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --snapshot-count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --poll-interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__prune)
            opts="-w -h -V --stalled-for --poll-interval --dead-voters --min-voters --dry-run --timeout --skip-check --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --stalled-for)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --poll-interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --min-voters)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --skip-check)
                    COMPREPLY=($(compgen -W "quorum alarms learners versions db apply disk network stability catch-up peer-tls force-new-cluster upgrade" -- "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__remove)
            opts="-w -h -V --dry-run --force --timeout --skip-check --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --skip-check)
                    COMPREPLY=($(compgen -W "quorum alarms learners versions db apply disk network stability catch-up peer-tls force-new-cluster upgrade" -- "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__replace)
            opts="-w -h -V --name --peer-urls --dry-run --timeout --poll-interval --start-local --skip-check --link-bandwidth --snapshot-count --peer-cert --peer-key --peer-trusted-ca --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-urls)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --poll-interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --skip-check)
                    COMPREPLY=($(compgen -W "quorum alarms learners versions db apply disk network stability catch-up peer-tls force-new-cluster upgrade" -- "${cur}"))
                    return 0
                    ;;
                --link-bandwidth)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --snapshot-count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-trusted-ca)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__status)
            opts="-w -h -V --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__member__subcmd__update)
            opts="-w -h -V --peer-urls --skip-check --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --peer-urls)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --skip-check)
                    COMPREPLY=($(compgen -W "quorum alarms learners versions db apply disk network stability catch-up peer-tls force-new-cluster upgrade" -- "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__node)
            opts="-w -h -V --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version run help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__node__subcmd__help)
            opts="run help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__node__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__node__subcmd__help__subcmd__run)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__node__subcmd__run)
            opts="-w -h -V --name --data-dir --listen-client-urls --advertise-client-urls --listen-metrics-urls --listen-peer-urls --initial-advertise-peer-urls --initial-cluster --initial-cluster-state --initial-cluster-token --heartbeat-interval --election-timeout --snapshot-count --max-learners --quota-backend-bytes --corrupt-check-time --grpc-keepalive-interval --grpc-keepalive-timeout --max-request-bytes --max-txn-ops --auto-compaction-mode --auto-compaction-retention --cert-file --key-file --trusted-ca-file --client-cert-auth --client-crl-file --client-cert-allowed-hostname --cipher-suites --tls-min-version --tls-max-version --auto-tls --peer-auto-tls --self-signed-cert-validity --peer-cert-file --peer-key-file --peer-trusted-ca-file --peer-client-cert-auth --peer-crl-file --peer-cert-allowed-cn --peer-cert-allowed-hostname --auth-token --auth-token-ttl --bcrypt-cost --initial-corrupt-check --strict-reconfig-check --max-concurrent-streams --watch-progress-notify-interval --fault-injection --fault-stale-reads --fault-ack-before-fsync --force-new-cluster --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --data-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --listen-client-urls)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --advertise-client-urls)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --listen-metrics-urls)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --listen-peer-urls)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --initial-advertise-peer-urls)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --initial-cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --initial-cluster-state)
                    COMPREPLY=($(compgen -W "new existing" -- "${cur}"))
                    return 0
                    ;;
                --initial-cluster-token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --heartbeat-interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --election-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --snapshot-count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-learners)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --quota-backend-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --corrupt-check-time)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --grpc-keepalive-interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --grpc-keepalive-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-request-bytes)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-txn-ops)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --auto-compaction-mode)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --auto-compaction-retention)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --trusted-ca-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --client-cert-auth)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --client-crl-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --client-cert-allowed-hostname)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cipher-suites)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tls-min-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tls-max-version)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --auto-tls)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --peer-auto-tls)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --self-signed-cert-validity)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-cert-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-key-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-trusted-ca-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-client-cert-auth)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --peer-crl-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-cert-allowed-cn)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --peer-cert-allowed-hostname)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --auth-token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --auth-token-ttl)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --bcrypt-cost)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --initial-corrupt-check)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --strict-reconfig-check)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --max-concurrent-streams)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --watch-progress-notify-interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --force-new-cluster)
                    COMPREPLY=($(compgen -W "true false" -- "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__snapshot)
            opts="-w -h -V --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version save status restore help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__snapshot__subcmd__help)
            opts="save status restore help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__snapshot__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__snapshot__subcmd__help__subcmd__restore)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__snapshot__subcmd__help__subcmd__save)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__snapshot__subcmd__help__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__snapshot__subcmd__restore)
            opts="-w -h -V --name --data-dir --initial-cluster --initial-advertise-peer-urls --initial-cluster-token --skip-hash-check --bump-revision --mark-compacted --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --data-dir)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --initial-cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --initial-advertise-peer-urls)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --initial-cluster-token)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --bump-revision)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__snapshot__subcmd__save)
            opts="-w -h -V --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        memberctl__subcmd__snapshot__subcmd__status)
            opts="-w -h -V --endpoints --dial-timeout --command-timeout --write-out --cacert --cert --key --insecure-skip-tls-verify --user --password --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --endpoints)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dial-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --command-timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --write-out)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                -w)
                    COMPREPLY=($(compgen -W "table json simple" -- "${cur}"))
                    return 0
                    ;;
                --cacert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cert)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --key)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --password)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _memberctl -o nosort -o bashdefault -o default memberctl
else
    complete -F _memberctl -o bashdefault -o default memberctl
fi
