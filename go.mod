module github.com/kafkasim/kafkasim

go 1.26

require github.com/yuin/goldmark v1.8.7
