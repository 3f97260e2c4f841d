# SPDX-License-Identifier: GPL-2.0-or-later
# bash completion for lnetcap(8).  Installed as
# /usr/share/bash-completion/completions/lnetcap; bash-completion loads it
# the first time "lnetcap <TAB>" is pressed.

_lnetcap_filter_words='type portal nid src dst net ni opcode xid jobid rpc status uid gid
  projid len pid retries dir health rc drop queue and or not'

_lnetcap()
{
    local cur prev words cword
    _init_completion -n = || return

    case $prev in
        -r|--read|-F|--filter-file|--btf|--anon-key|--chart-output|--nid-names)
            _filedir
            return ;;
        -w|--write)
            _filedir 'pcapng'
            return ;;
        -i|--interface)
            # LNet nets are not listed without privileges; network
            # interfaces are, for socklnd capture with libpcap.
            COMPREPLY=($(compgen -W "tcp o2ib kfi $(command ls /sys/class/net 2>/dev/null)" -- "$cur"))
            return ;;
        -Q|--direction)
            COMPREPLY=($(compgen -W 'in out inout' -- "$cur"))
            return ;;
        --curve-key|--server-key)
            _filedir
            return ;;
        --from)
            # lnetcapd's default socket, or a socket path.
            COMPREPLY=($(compgen -W 'local' -- "$cur"))
            _filedir
            return ;;
        --attach)
            COMPREPLY=($(compgen -W 'auto fentry kprobe' -- "$cur"))
            return ;;
        --lustre-version)
            COMPREPLY=($(compgen -W '2.15 2.16 2.17' -- "$cur"))
            return ;;
        --chart)
            COMPREPLY=($(compgen -W 'mermaid html' -- "$cur"))
            return ;;
        -Z|--relinquish-privileges)
            COMPREPLY=($(compgen -u -- "$cur"))
            return ;;
        -z|--postrotate-command)
            COMPREPLY=($(compgen -c -- "$cur"))
            return ;;
        type)
            COMPREPLY=($(compgen -W 'put get ack reply hello' -- "$cur"))
            return ;;
        dir)
            COMPREPLY=($(compgen -W 'send recv forward drop wire' -- "$cur"))
            return ;;
        rpc)
            COMPREPLY=($(compgen -W 'request reply error' -- "$cur"))
            return ;;
        portal)
            COMPREPLY=($(compgen -W 'CONNMGR_REQUEST CONNMGR_REPLY OSC_REPLY OST_IO OST_CREATE
                OST_BULK MDC_REPLY MDS_REQUEST MDS_IO MDS_BULK LDLM_CB_REQUEST LDLM_CB_REPLY
                LDLM_CANCEL_REQUEST LDLM_CANCEL_REPLY MDS_READPAGE OUT MGC_REPLY MGS_REQUEST
                MGS_REPLY OST_REQUEST FLD_REQUEST SEQ_METADATA SEQ_DATA SEQ_CONTROLLER MGS_BULK
                SRPC_REQUEST SRPC_FRAMEWORK_REQUEST SRPC_RDMA' -- "$cur"))
            return ;;
        opcode)
            COMPREPLY=($(compgen -W 'OST_READ OST_WRITE OST_PUNCH OST_SYNC OST_GETATTR OST_SETATTR
                OST_CREATE OST_DESTROY OST_STATFS MDS_GETATTR MDS_GETATTR_NAME MDS_REINT MDS_CLOSE
                MDS_READPAGE MDS_CONNECT MDS_DISCONNECT MDS_GET_INFO MDS_STATFS MDS_SYNC
                LDLM_ENQUEUE LDLM_CONVERT LDLM_CANCEL LDLM_BL_CALLBACK LDLM_CP_CALLBACK
                LDLM_GL_CALLBACK OBD_PING OST_CONNECT OST_DISCONNECT MGS_CONNECT MGS_CONFIG_READ
                SEQ_QUERY FLD_QUERY LLOG_ORIGIN_HANDLE_CREATE' -- "$cur"))
            return ;;
        -c|--count|-s|--snapshot-length|-B|--buffer-size|-C|--file-size|-G|--rotate-seconds|\
        -W|--file-count|-p|--pretty|--port|--bulk-port|--local-nid|--stats-interval|--assert|--reconnect|--consumer-group)
            return ;;
    esac

    case $cur in
        --summary=*)
            COMPREPLY=($(compgen -P '--summary=' -W 'table json prometheus' -- "${cur#--summary=}"))
            return ;;
        -*)
            COMPREPLY=($(compgen -W '-r --read --strict -i --interface --from --reconnect --consumer-group --curve-key --server-key --dump --status -D --list-interfaces
                -s --snapshot-length -B --buffer-size -Q --direction
                -Z --relinquish-privileges --btf --attach --lustre-version --port --bulk-port --local-nid
                -w --write -c --count -p --pretty -q --quiet -v --verbose -x --hex
                -U --packet-buffered --print --nano -n --nid-names --resolve-nids -C --file-size -G --rotate-seconds
                -W --file-count -z --postrotate-command --stats-interval --summary
                --summary= --chart --chart-output --assert --only-command --top --top-batch --anonymize --anon-key
                -F --filter-file -h --help --version' -- "$cur"))
            [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
            return ;;
    esac

    # Anything else is part of the filter expression.
    COMPREPLY=($(compgen -W "$_lnetcap_filter_words" -- "$cur"))
} &&
    complete -F _lnetcap lnetcap
